import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { PolicyRule } from "@rein/contracts";
import { IdempotencyStore } from "../../src/stores/idempotency-store.ts";
import { builtinTools, defineTool, type Workspace } from "@rein/tools";
import { ToolResultCache } from "../../src/stores/tool-result-cache.ts";
import { call, harness } from "@rein/tools/testing";
import { type RedisForTest, workspaceAndRedis } from "./redis-harness.ts";

let workspace: Workspace;
let env: RedisForTest;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ workspace, env, cleanup } = await workspaceAndRedis()));
afterEach(() => cleanup());

const surface = ["read_file", "write_file"].map((name) => ({ name, scope: {} }));

describe("read-only result cache", () => {
  it("serves a repeated read from the run's cache and drops it after a write", async () => {
    await writeFile(join(workspace.root, "a.txt"), "v1");
    const cache = new ToolResultCache(env.redis, env.keys);
    const { run, trace } = harness({ tools: builtinTools(), surface, workspace, deps: { cache } });
    const first = await run(call("read_file", { path: "a.txt" }));
    expect(first.observation.provenance.cacheHit).toBe(false);
    // Changed behind the tools' back: a cache hit proves the read did not run again.
    await writeFile(join(workspace.root, "a.txt"), "v2-outside");
    const second = await run(call("read_file", { path: "a.txt" }));
    expect(second.observation.provenance.cacheHit).toBe(true);
    expect(second.observation.provenance.observedAt).toBe(first.observation.provenance.observedAt);
    expect(second.observation.content).toContain("v1");
    expect(trace.kinds()).toContain("tool.cache_hit");

    await run(call("write_file", { path: "a.txt", content: "v3" }));
    const third = await run(call("read_file", { path: "a.txt" }));
    expect(third.observation.provenance.cacheHit).toBe(false);
    expect(third.observation.content).toContain("v3");
  });

  it("is per run", async () => {
    await writeFile(join(workspace.root, "a.txt"), "v1");
    const cache = new ToolResultCache(env.redis, env.keys);
    const one = harness({ tools: builtinTools(), surface, workspace, deps: { cache }, runId: "run_one" });
    const two = harness({ tools: builtinTools(), surface, workspace, deps: { cache }, runId: "run_two" });
    await one.run(call("read_file", { path: "a.txt" }));
    expect((await two.run(call("read_file", { path: "a.txt" }))).observation.provenance.cacheHit).toBe(false);
  });
});

describe("a result cache write", () => {
  const result = {
    schemaVersion: 1 as const,
    fingerprint: "f1",
    rendered: "v1",
    rawOutputHash: `sha256:${"0".repeat(64)}`,
    empty: false,
    observedAt: new Date(0).toISOString(),
  };
  // Only what put uses of a connection: one script call, whose reply is `reply`.
  const connection = (reply: () => Promise<unknown>) =>
    ({ eval: reply, evalsha: reply }) as unknown as ConstructorParameters<typeof ToolResultCache>[0];

  it("stores the entry with the run's cache TTL, refreshed by each write", async () => {
    const cache = new ToolResultCache(env.redis, env.keys, { ttlSeconds: 600 });
    const key = env.keys.toolCache("run_ttl");
    await cache.put("run_ttl", result);
    await expect.poll(() => env.redis.hget(key, "f1")).toBe(JSON.stringify(result));
    expect(await env.redis.ttl(key)).toBeGreaterThan(500);
    await env.redis.expire(key, 100);
    await cache.put("run_ttl", { ...result, fingerprint: "f2" });
    await expect.poll(() => env.redis.ttl(key)).toBeGreaterThan(500);
  });

  it("does not hold the call up waiting for Redis: the entry is no acknowledged effect", async () => {
    const cache = new ToolResultCache(
      connection(() => new Promise(() => undefined)),
      env.keys,
    );
    await expect(cache.put("run_1", result)).resolves.toBeUndefined();
  });

  it("that fails is reported, never thrown into the call", async () => {
    const reported: unknown[] = [];
    const cache = new ToolResultCache(
      connection(async () => Promise.reject(new Error("READONLY"))),
      env.keys,
      { onWriteError: (error) => reported.push(error) },
    );
    await cache.put("run_1", result);
    await new Promise((resolve) => setImmediate(resolve));
    expect(String(reported[0])).toContain("READONLY");
  });
});

describe("idempotent replay", () => {
  function sendEmailTool() {
    const sent: string[] = [];
    const tool = defineTool({
      name: "send_email",
      description: "Queue an email in the outbox (not idempotent).",
      effect: "write",
      input: z.object({ to: z.string(), body: z.string() }),
      scope: () => ({ paths: ["outbox"] }),
      run: async (args, context) => {
        sent.push(args.to);
        return `queued message ${sent.length} to ${args.to} (key ${context.idempotencyKey})`;
      },
    });
    return { tool, sent };
  }

  it("replays the recorded result when a step is re-run, instead of performing the effect again", async () => {
    const { tool, sent } = sendEmailTool();
    const idempotency = new IdempotencyStore(env.redis, env.keys);
    const surface = [{ name: "send_email", scope: {} }];
    const original = harness({ tools: [tool], surface, workspace, deps: { idempotency } });
    const first = await original.run(call("send_email", { to: "ops", body: "hi" }));
    expect(first.observation.provenance.replayed).toBe(false);
    expect(sent).toEqual(["ops"]);

    // The worker crashed after the effect; the step runs again from call index 0.
    const rerun = harness({ tools: [tool], surface, workspace, deps: { idempotency } });
    const replayed = await rerun.run(call("send_email", { to: "ops", body: "hi" }));
    expect(replayed.observation.provenance.replayed).toBe(true);
    expect(replayed.observation.content).toContain("queued message 1 to ops (key run_test:step_test:1:0)");
    expect(rerun.trace.kinds()).toContain("tool.replayed");
    expect(sent).toEqual(["ops"]);

    // A different action at the same index is a new effect.
    const differentStep = harness({ tools: [tool], surface, workspace, deps: { idempotency } });
    await differentStep.run(call("send_email", { to: "sales", body: "hi" }));
    expect(sent).toEqual(["ops", "sales"]);
  });

  it("runs a retry attempt's call afresh and replays only a re-run of that same attempt", async () => {
    const idempotency = new IdempotencyStore(env.redis, env.keys);
    const tools = builtinTools({ commands: ["node"] });
    const surface = [{ name: "run_command", scope: { commands: ["node"] } }];
    const policy = [PolicyRule.parse({ id: "allow-node", tool: "run_command", commands: ["node"], decision: "allow" })];
    // Each run appends a line and exits with the number of lines so far: a fresh run says so in its exit code.
    const script =
      "const fs=require('fs');fs.appendFileSync('runs.txt','x\\n');process.exit(fs.readFileSync('runs.txt','utf8').split('\\n').length-1)";
    const runCommand = () => call("run_command", { command: "node", args: ["-e", script] });
    const attempt = (number: number) => harness({ tools, surface, workspace, policy, deps: { idempotency } }).context({ attempt: number });
    const executorFor = () => harness({ tools, surface, workspace, policy, deps: { idempotency } });

    const first = executorFor();
    const one = await first.executor.execute(runCommand(), 0, attempt(1));
    expect(one.observation.content).toMatch(/exit code: 1\b/);

    // The evaluator asked for a retry: attempt 2's call at the same index is a new effect.
    const retry = executorFor();
    const two = await retry.executor.execute(runCommand(), 0, attempt(2));
    expect(retry.trace.kinds()).not.toContain("tool.replayed");
    expect(two.observation.provenance.replayed).toBe(false);
    expect(two.observation.content).toMatch(/exit code: 2\b/);

    // Attempt 2's worker crashed after the effect: its re-run replays attempt 2's own record.
    const rerun = executorFor();
    const again = await rerun.executor.execute(runCommand(), 0, attempt(2));
    expect(rerun.trace.kinds()).toContain("tool.replayed");
    expect(again.observation.provenance.replayed).toBe(true);
    expect(again.observation.content).toMatch(/exit code: 2\b/);
    expect(await readFile(join(workspace.root, "runs.txt"), "utf8")).toBe("x\nx\n");
  });
});
