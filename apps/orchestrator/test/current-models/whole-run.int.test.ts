import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TraceEvent } from "@rein/contracts/run";
import type { ContentBlock } from "@rein/contracts/model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, cliEnv, cliRuntimesClosedAfterAll, rein } from "../support/cli.ts";
import { type EmulatedProviders, emulatedProviders } from "../support/emulated-providers.ts";
import { bugfixExample } from "../support/harness.ts";

/**
 * Issue 27: a whole `rein run` of a goal with tools, against today's APIs
 * as strict emulators serve them (each refuses what its provider's docs say
 * it refuses), ends done with no request refused; the thinking of its tool
 * loops goes back byte-identical; `rein replay` says identical; and its
 * cost shows the prompt cache's reads and writes.
 */
describe.each([
  { kind: "anthropic" as const, model: "claude-sonnet-5-5" },
  { kind: "openai" as const, model: "gpt-6-sol" },
])("rein run of examples/bugfix on $model behind a strict emulator of its API", ({ kind, model }) => {
  const runtimeFor = cliRuntimesClosedAfterAll();
  let providers: EmulatedProviders;
  let env: NodeJS.ProcessEnv;
  let run: CliResult;
  let replay: CliResult;
  let runId: string;
  let trace: TraceEvent[];

  beforeAll(async () => {
    const { example, script } = await bugfixExample();
    providers = await emulatedProviders(kind, model, script);
    const dir = mkdtempSync(join(tmpdir(), "rein-current-models-"));
    const file = join(dir, "rein.config.json");
    writeFileSync(file, JSON.stringify({ ...providers.config, policy: example.config.policy }));
    env = cliEnv(providers.env);
    run = await rein(["run", "--example", "bugfix", "--config", file], env);
    runId = /run (run_[A-Za-z0-9_-]+): /.exec(run.stdout)?.[1] ?? "";
    trace = await runtimeFor(env).trace.read(runId);
    replay = await rein(["replay", runId, "--config", file], env);
  }, 240_000);
  afterAll(async () => {
    await providers.stop();
  });

  it("ends done, verified by the evaluator, with no request refused", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`run ${runId}: done (the evaluator verified the answer)`);
    expect(providers.refusals()).toEqual([]);
  });

  it("sends the worker's thinking back byte-identical, in its place, on the next call of its tool loop", () => {
    const thinkingOf = (event: TraceEvent) =>
      ((event.payload.content ?? []) as { type: string }[]).filter(
        (block): block is Extract<ContentBlock, { type: "thinking" }> => block.type === "thinking",
      );
    const responded = trace.filter((event) => event.kind === "model.responded" && event.payload.role === "worker");
    const thought = responded.flatMap(thinkingOf);
    expect(thought.length).toBeGreaterThan(1);
    for (const block of thought) expect(block.signature.length).toBeGreaterThan(0);
    const sentBack = JSON.stringify(providers.bodies("worker").slice(1));
    // The last reply ends the loop; every thought before it went back on the wire as it came.
    for (const block of responded.slice(0, -1).flatMap(thinkingOf)) {
      expect(sentBack).toContain(JSON.stringify(block.signature));
      if (block.text) expect(sentBack).toContain(JSON.stringify(block.text));
    }
  });

  it("shows what the prompt cache read and wrote in the run's cost", () => {
    const spent = /spent: .*\(prompt cache: (\d+) read, (\d+) written\), \$(\d+\.\d+)/.exec(run.stdout);
    expect(spent, run.stdout).not.toBeNull();
    expect(Number(spent?.[1])).toBeGreaterThan(0);
    expect(Number(spent?.[2])).toBeGreaterThan(0);
    expect(Number(spent?.[3])).toBeGreaterThan(0);
  });

  it("replays identical", () => {
    expect(replay.code, `${replay.stdout}\n${replay.stderr}`).toBe(0);
    expect(replay.stdout).toMatch(/^identical: /m);
  });
});
