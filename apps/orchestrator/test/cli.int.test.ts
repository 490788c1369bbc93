import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RunState, TraceEvent } from "@rein/contracts/run";
import { exportPacketKeys, generatePacketKeys } from "@rein/signing";
import { cliEnv, rein, startRein, prefixesCleanedAfterAll } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

const tracked = (env: NodeJS.ProcessEnv) => {
  prefixes.push(env.REIN_PREFIX as string);
  return env;
};

describe("rein CLI", () => {
  // Four CLI processes (run, trace, status twice), each loading every package through tsx.
  it("runs examples/bugfix to done, printing progress, and its trace reads back in causal order", async () => {
    const env = tracked(cliEnv());
    const run = await rein(["run", "--example", "bugfix"], env);
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ plan: "Fix add\(\) so the tests pass"/);
    expect(run.stdout).toMatch(/⚙ run_command/);
    expect(run.stdout).toMatch(/verdict: continue/);
    expect(run.stdout).toMatch(/verdict on the final answer: done/);
    expect(run.stdout).toMatch(/: done \(the evaluator verified the answer\)/);
    expect(run.stdout).toMatch(/claim \(supported\): `node --test` exits 0 after the change\. \[evidence: obs_[a-z0-9]+\]/);
    const runId = /run (run_[a-z0-9]+) submitted/.exec(run.stdout)?.[1];
    expect(runId).toBeDefined();

    const status = await rein(["status", runId as string], env);
    expect(status.stdout).toMatch(
      /claim \(supported\): src\/add\.js was rewritten so that add\(\) returns a \+ b\. \[evidence: obs_[a-z0-9]+\]/,
    );
    const json = JSON.parse((await rein(["status", runId as string, "--json"], env)).stdout) as RunState;
    expect(json.result?.claims.map((claim) => [claim.status, claim.evidence.length])).toEqual([
      ["supported", 1],
      ["supported", 1],
    ]);
    expect(json.result?.answer?.gaps).toEqual([]);

    const trace = await rein(["trace", runId as string, "--json"], env);
    expect(trace.code).toBe(0);
    const events = trace.stdout
      .trim()
      .split("\n")
      .map((line) => TraceEvent.parse(JSON.parse(line)));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const kinds = events.map((event) => event.kind);
    const order = ["run.submitted", "plan.ready", "step.dispatched", "tool.called", "step.finished", "verdict.ready", "run.done"].map(
      (kind) => kinds.indexOf(kind),
    );
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    for (const event of events.filter((candidate) => candidate.kind.startsWith("model.") || candidate.kind.startsWith("tool."))) {
      expect(event.inputHash).toMatch(/^sha256:/);
    }
  }, 120_000);

  it("refuses an empty goal at submit with the reason and exit code 2", async () => {
    const env = tracked(cliEnv());
    const submit = await rein(["submit", ""], env);
    expect(submit.code).toBe(2);
    expect(submit.stderr).toMatch(/the goal text is empty/);
  });

  it("prints a run id for a submitted goal and its status", async () => {
    const env = tracked(cliEnv());
    const submit = await rein(["submit", "list the files", "--tools", "list_files"], env);
    expect(submit.code).toBe(0);
    const runId = submit.stdout.trim();
    expect(runId).toMatch(/^run_[a-z0-9]+$/);
    const status = await rein(["status", runId], env);
    expect(status.stdout).toMatch(new RegExp(`run ${runId}: planning`));
  });

  it("takes --prefix on every command that reads Redis, over REIN_PREFIX", async () => {
    const env = tracked(cliEnv());
    const other = tracked(cliEnv()).REIN_PREFIX as string;
    const submit = await rein(["submit", "list the files", "--tools", "list_files", "--prefix", other], env);
    expect(submit.code, submit.stderr).toBe(0);
    const runId = submit.stdout.trim();
    const status = await rein(["status", runId, "--prefix", other], env);
    expect(status.stdout).toMatch(new RegExp(`run ${runId}: planning`));
    expect((await rein(["status", runId], env)).code).not.toBe(0);
    const invalid = await rein(["status", runId, "--prefix", "a b"], env);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/prefix.*expected letters, digits/);

    const file = join(mkdtempSync(join(tmpdir(), "rein-prefix-")), "run.jsonl");
    expect((await rein(["trace", "export", runId, "-o", file, "--prefix", other], env)).code).toBe(0);
    const third = tracked(cliEnv()).REIN_PREFIX as string;
    const imported = await rein(["trace", "import", file, "--prefix", third], env);
    expect(imported.stdout).toContain(`under prefix ${third}`);
    const trace = await rein(["trace", runId, "--json", "--prefix", third], env);
    expect(trace.stdout).toMatch(/"kind":"run.submitted"/);
  }, 60_000);

  // What a step worker is given: the controller's packet public key and the deciders' approval public key.
  const stepWorkerKeys = () => ({
    REIN_PACKET_PUBLIC_KEY: exportPacketKeys(generatePacketKeys()).publicKeyPem,
    REIN_APPROVAL_PUBLIC_KEY: exportPacketKeys(generatePacketKeys()).publicKeyPem,
  });

  it("stops a worker on SIGTERM with exit code 0", async () => {
    const env = tracked(cliEnv(stepWorkerKeys()));
    const worker = startRein(["worker", "--role", "step", "--concurrency", "2"], env);
    await new Promise<void>((resolve) => {
      worker.child.stderr?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("running against")) resolve();
      });
    });
    worker.child.kill("SIGTERM");
    const result = await worker.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/stopping: finishing current jobs/);
  });

  it("refuses a lock time too short to be safe, saying what it expects", async () => {
    const result = await rein(["worker", "--role", "step", "--lock-ms", "50"], tracked(cliEnv(stepWorkerKeys())));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--lock-ms 50: expected a whole number at least 1000/);
  });

  it("tells a step worker without the packet public key how to get one", async () => {
    const env = tracked(cliEnv());
    delete env.REIN_PACKET_PUBLIC_KEY;
    delete env.REIN_PACKET_PUBLIC_KEY_FILE;
    const result = await rein(["worker", "--role", "step"], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/REIN_PACKET_PUBLIC_KEY/);
  });

  it("tells a step worker without the approval public key where it goes, and starts none", async () => {
    const { REIN_PACKET_PUBLIC_KEY } = stepWorkerKeys();
    const result = await rein(["worker", "--role", "step"], tracked(cliEnv({ REIN_PACKET_PUBLIC_KEY })));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/approval public key/);
    expect(result.stderr).toMatch(/approval-public\.pem or REIN_APPROVAL_PUBLIC_KEY_FILE/);
  });

  it("prints the role → provider table, and exits 2 when the roles name only the built-in scripted provider, which has no script", async () => {
    const result = await rein(["models"], tracked(cliEnv({ REIN_WORKER_PROVIDER: "scripted", REIN_WORKER_MODEL: "tiny-1" })));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no model is configured/);
    expect(result.stdout).toMatch(/worker\s+scripted\s+scripted\s+tiny-1/);
  });
});
