import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeServer } from "@rein/models/testing";
import { cliEnv, rein, prefixesCleanedAfterAll } from "./support/cli.ts";
import { freePort } from "../src/redis/embedded-redis.ts";
import { startConfiguredHarness } from "./support/configured-harness.ts";

const allRoles = (provider: string, model: string) => {
  const role = { provider, model };
  return { planner: role, worker: role, evaluator: role, judge: role };
};

describe("failing fast on a provider that is not there", () => {
  const prefixes = prefixesCleanedAfterAll();

  it("spends one retry budget per call: provider retries are not multiplied by the queue's job attempts", async () => {
    const server = await new FakeServer(() => ({
      status: 503,
      json: { error: { message: "upstream unavailable", type: "server_error" } },
    })).start("/v1");
    const harness = await startConfiguredHarness({
      config: {
        providers: { local: { kind: "openai-compatible", baseURL: server.baseURL, maxRetries: 2 } },
        roles: allRoles("local", "qwen3"),
      },
      env: {},
    });
    try {
      const runId = await harness.submit({ text: "Say hello." });
      const state = await harness.waitFor(runId);
      expect(state.status).toBe("failed");
      expect(state.stopReason).toMatch(/planning failed: .*HTTP 503.*still server_error after 2 retries/);
      // One call, one budget: the first try and 2 retries, not 5 job attempts × 3.
      expect(server.requests).toHaveLength(3);
    } finally {
      await harness.close();
      await server.stop();
    }
  });

  it("rein run against a compatible server that is down ends with one message naming the URL", async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "rein-fail-fast-"));
    const configFile = join(dir, "rein.config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        providers: { local: { kind: "openai-compatible", baseURL: `http://127.0.0.1:${port}/v1` } },
        roles: allRoles("local", "qwen3"),
      }),
    );
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX as string);
    const run = await rein(["run", "Say hello.", "--config", configFile], env);

    expect(run.code).toBe(1);
    const problems = run.stderr.split("\n").filter((line) => line.startsWith("rein run:"));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      new RegExp(`model provider "local" \\(openai-compatible\\) at http://127\\.0\\.0\\.1:${port}/v1 is unreachable: .*ECONNREFUSED`),
    );
    expect(run.stdout).not.toMatch(/submitted/);
  });
});
