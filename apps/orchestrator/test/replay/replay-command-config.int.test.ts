import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, prefixesCleanedAfterAll, rein } from "../support/cli.ts";

// Two full CLI runs of an example, each a process of its own: sized for a loaded machine, not a timing assertion.
describe("rein replay with the --config the run had", { timeout: 180_000 }, () => {
  const prefixes = prefixesCleanedAfterAll();

  it("replays an offline example run identical: the example's policy applies in the replay as it did in the run", async () => {
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX ?? "");
    // A deployment file that names no model: the run plays the example's script, under the example's own config.
    const configFile = join(mkdtempSync(join(tmpdir(), "rein-replay-config-")), "rein.config.json");
    writeFileSync(configFile, JSON.stringify({ retention: { runTtlSeconds: 3_600 } }));

    const run = await rein(["run", "--example", "bugfix", "--config", configFile], env);
    expect(run.code, run.stderr).toBe(0);
    const runId = /\brun_[a-z0-9]+\b/.exec(run.stdout)?.[0] ?? "";

    const replay = await rein(["replay", runId, "--config", configFile], env);
    expect({ code: replay.code, stdout: replay.stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/^identical: /) });
  });
});
