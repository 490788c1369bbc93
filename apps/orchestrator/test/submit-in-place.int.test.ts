import { describe, expect, it } from "vitest";
import { ensureKeyPairFiles } from "@rein/signing";
import { jobIds, QUEUE_NAMES } from "@rein/runtime";
import { cliEnv, cliRuntimesClosedAfterAll, rein } from "./support/cli.ts";

// Every key under the children's prefixes is deleted after the file's tests.
const runtimeOf = cliRuntimesClosedAfterAll();

// CLI starts on a loaded machine; sized generously, not a timing assertion.
describe("rein submit where the packet-signing key is", { timeout: 120_000 }, () => {
  const submit = async (env: NodeJS.ProcessEnv) => {
    const submitted = await rein(["submit", "list the files", "--tools", "list_files"], env);
    expect(submitted.code, submitted.stderr).toBe(0);
    const runId = submitted.stdout.trim();
    const runtime = runtimeOf(env);
    const queued = async (queue: "control" | "plan", jobId: string) =>
      (await runtime.redis.exists(runtime.keys.job(QUEUE_NAMES[queue], jobId, runId))) === 1;
    return {
      state: await runtime.runs.require(runId),
      controlJob: await queued("control", jobIds.control(`submitted-${runId}`)),
      firstPlan: await queued("plan", jobIds.plan(runId, 1)),
    };
  };

  it("takes the run in itself, as rein serve does: its first plan queued, no control job", async () => {
    const env = cliEnv();
    ensureKeyPairFiles(env.REIN_KEYS_DIR as string, "packet");
    const { state, controlJob, firstPlan } = await submit(env);
    expect(state.status).toBe("planning");
    expect(state.planCount).toBe(1);
    expect(controlJob).toBe(false);
    expect(firstPlan).toBe(true);
  });

  it("sends the run's goal.submitted to the control queue from a machine without the key", async () => {
    const { state, controlJob, firstPlan } = await submit(cliEnv());
    expect(state.planCount).toBe(0);
    expect(controlJob).toBe(true);
    expect(firstPlan).toBe(false);
  });
});
