import { describe, expect, it } from "vitest";
import { cliEnv, prefixesCleanedAfterAll, rein, startRein } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

/** `rein run --example sre-triage` without --approve stops at a person's approval: a run that is still going when Ctrl-C comes. */
async function runWaitingForApproval(extra: string[]) {
  const env = cliEnv();
  prefixes.push(env.REIN_PREFIX as string);
  const run = startRein(["run", "--example", "sre-triage", ...extra], env);
  let stdout = "";
  await new Promise<void>((resolve) => {
    run.child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("waiting for approval")) resolve();
    });
  });
  const runId = /run (run_[a-z0-9]+) submitted/.exec(stdout)?.[1] as string;
  return { env, run, runId };
}

// CLI runs on a loaded machine; sized generously, not a timing assertion.
describe("Ctrl-C on rein run", { timeout: 180_000 }, () => {
  it("cancels the run and says so", async () => {
    const { env, run, runId } = await runWaitingForApproval([]);
    run.child.kill("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`Ctrl-C: cancelling run ${runId}`);
    expect(result.stdout).toContain(`run ${runId}: cancelled`);
    expect((await rein(["status", runId], env)).stdout).toContain(`run ${runId}: cancelled`);
  });

  it("with --detach leaves the run as it is and says how to follow it", async () => {
    const { env, run, runId } = await runWaitingForApproval(["--detach"]);
    run.child.kill("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`detached from run ${runId}`);
    expect(result.stderr).toContain(`rein status ${runId}`);
    expect((await rein(["status", runId], env)).stdout).toContain(`run ${runId}: waiting_approval`);
  });
});
