import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, SecretBindings } from "@rein/guard";
import { loadPlugin } from "../src/load-plugin.ts";
import { PluginHost } from "../src/plugin-host.ts";
import { pluginTools } from "../src/plugin-tools.ts";
import { unsandboxed } from "@rein/sandbox";
import type { Workspace } from "@rein/tools";
import { call, harness, MemoryTrace, tempWorkspace } from "@rein/tools/testing";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

let workspace: Workspace;
let cleanup: () => Promise<void>;
const hosts: PluginHost[] = [];
const pids = new Set<number>();

beforeAll(async () => {
  ({ workspace, cleanup } = await tempWorkspace());
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await cleanup();
});

async function setUp(name: string, breaker = { failureThreshold: 100, openMs: 60_000 }) {
  const trace = new MemoryTrace();
  const host = new PluginHost(await loadPlugin(fixture(name)), {
    sandbox: async () => unsandboxed,
    secrets: SecretBindings.none(),
    logger: createLogger({ level: "silent" }),
    trace,
    supervision: { backoff: { initialMs: 10, maxMs: 50 }, pingIntervalMs: 0, breaker },
  });
  hosts.push(host);
  const tools = pluginTools(host);
  const surface = tools.map((tool) => ({ name: tool.name, scope: {} }));
  const executor = harness({ tools, surface, workspace, deps: { retry: { maxAttempts: 1 }, trace }, runId: "run_plugins" });
  return { ...executor, host, trace, echo: () => echo(executor.run) };
}

async function echo(run: ReturnType<typeof harness>["run"]): Promise<number> {
  const outcome = await run(call("echo", { text: "still here" }));
  expect(outcome.observation.content).toContain("still here");
  expect(outcome.observation.status).toBe("ok");
  const pid = Number(/"pid": (\d+)/.exec(outcome.observation.content)?.[1]);
  pids.add(pid);
  return pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a plugin that misbehaves", () => {
  it("answers a call, logs through Rein, and traces where the result came from", async () => {
    const { run, trace } = await setUp("misbehaving");
    const outcome = await run(call("echo", { text: "hello" }));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.provenance.trust).toBe("external");
    const executed = trace.ofKind("tool.executed")[0];
    expect(executed?.payload).toMatchObject({ status: "ok", plugin: "misbehaving", pluginVersion: "1.0.0" });
    expect(trace.kinds()).toContain("plugin.process_started");
  });

  it("reports a tool's own error as the plugin said it, and keeps its process", async () => {
    const { run, echo } = await setUp("misbehaving");
    const before = await echo();
    const outcome = await run(call("fail", { text: "invoice-9" }));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain("reported not_found: nothing called invoice-9");
    expect(await echo()).toBe(before);
  });

  it("crashing mid-call: the call ends with the exit and stderr, the next call gets a new process", async () => {
    const { run, echo, host } = await setUp("misbehaving");
    const before = await echo();
    const outcome = await run(call("crash", {}));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toMatch(/ended before answering \(exit code 3; its last stderr: about to crash\)/);
    const after = await echo();
    expect(after).not.toBe(before);
    expect(alive(before)).toBe(false);
    expect(host.status().restarts).toBe(1);
  });

  it("hanging past its deadline: the process tree is killed and the call times out clearly", async () => {
    const { run, echo, trace } = await setUp("misbehaving");
    const before = await echo();
    const outcome = await run(call("hang", {}));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain("did not answer within its deadline of 500 ms; its process tree was killed");
    await eventually(() => !alive(before), "the hung process to die");
    expect(trace.ofKind("plugin.process_exited").at(-1)?.payload).toMatchObject({ killedFor: "deadline", unexpected: true });
    await echo();
  });

  it("cancelled mid-call: the persistent plugin is told to stop that call, keeps its process, and its late answer goes nowhere", async () => {
    const { run, echo } = await setUp("misbehaving");
    const before = await echo();
    const calls = join(workspace.root, "calls.txt");
    const controller = new AbortController();
    const outcome = run(call("hang_until_cancelled", {}), { signal: controller.signal });
    await expect.poll(() => (existsSync(calls) ? readFileSync(calls, "utf8") : ""), { timeout: 15_000 }).toMatch(/^started (\d+)\n$/);
    const id = /^started (\d+)/.exec(readFileSync(calls, "utf8"))?.[1];
    controller.abort();
    // An interrupted call gives the model no observation: the step ends.
    await expect(outcome).rejects.toThrow(/hang_until_cancelled/);
    await expect.poll(() => readFileSync(calls, "utf8"), { timeout: 15_000 }).toContain(`cancelled ${id}\n`);
    expect(await echo()).toBe(before);
  });

  it("hanging with a child of its own: the deadline kills the whole tree, grandchild included", async () => {
    const { run, echo } = await setUp("misbehaving");
    await echo();
    const outcome = await run(call("hang_with_child", {}));
    expect(outcome.observation.content).toContain("did not answer within its deadline of 500 ms; its process tree was killed");
    await eventually(() => !execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).includes("sleep 317"), "the grandchild to die");
    await echo();
  });

  it("writing garbage to stdout is a protocol error: the process is killed, the call says why", async () => {
    const { run, echo } = await setUp("misbehaving");
    const before = await echo();
    const outcome = await run(call("garbage", {}));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain('broke the wire protocol (stdout line is not JSON: "this is not json")');
    await eventually(() => !alive(before), "the process to die");
    await echo();
  });

  it("answering with the wrong id: the answer is dropped and the deadline says so", async () => {
    const { run, echo } = await setUp("misbehaving");
    await echo();
    const outcome = await run(call("wrong_id", {}));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain("sent 1 answer(s) with an id Rein never asked for");
    expect(outcome.observation.content).not.toContain("for someone else");
    await echo();
  });

  it("returning output that breaks its schema: the result is withheld, the process stays", async () => {
    const { run, echo, trace } = await setUp("misbehaving");
    const before = await echo();
    const outcome = await run(call("bad_output", {}));
    expect(outcome.observation.status).toBe("invalid_output");
    expect(outcome.observation.content).toContain('field "text"');
    expect(outcome.observation.content).not.toContain("42");
    expect(trace.kinds()).toContain("tool.output_invalid");
    expect(await echo()).toBe(before);
  });

  it("flooding stderr: the call still succeeds and the process stays", async () => {
    const { run, echo } = await setUp("misbehaving");
    const before = await echo();
    const outcome = await run(call("flood_stderr", {}));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("flooded");
    expect(await echo()).toBe(before);
  });

  it("a large output is cut to the observation limit with the whole in an artifact, and fenced as untrusted", async () => {
    const { run, artifacts } = await setUp("misbehaving");
    const outcome = await run(call("big", {}));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toMatch(/Truncated: .* the whole text is in artifact art_1/);
    expect(outcome.observation.content).toContain("untrusted-data");
    expect(artifacts.items.size).toBe(1);
    expect([...artifacts.items.values()][0]).toContain("approve everything");
  });

  it("never saying ready: the call fails at start, and no process is left", async () => {
    const { run } = await setUp("never-ready");
    const outcome = await run(call("echo", { text: "x" }));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain("could not be started: it did not complete its handshake within 500 ms");
    await eventually(
      () => !execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).includes("--never-ready"),
      "the never-ready process to die",
    );
  });

  it("checks arguments against the manifest's JSON Schema before anything is sent", async () => {
    const { run, trace } = await setUp("misbehaving");
    const outcome = await run(call("echo", { text: 5, extra: true }));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toContain('field "text"');
    expect(outcome.observation.content).toContain('field "extra"');
    expect(trace.kinds()).not.toContain("plugin.process_started");
  });

  it("the breaker opens after repeated crashes, refuses calls while open, and closes after a good probe", async () => {
    const { run, host, trace, echo } = await setUp("misbehaving", { failureThreshold: 2, openMs: 300 });
    await run(call("crash", {}));
    await run(call("crash", {}));
    expect(host.status().breaker).toBe("open");
    const refused = await run(call("echo", { text: "x" }));
    expect(refused.observation.status).toBe("error");
    expect(refused.observation.content).toContain("circuit breaker is open");
    await eventually(() => host.breaker.state() === "half_open", "the breaker to half-open");
    await echo();
    expect(host.status().breaker).toBe("closed");
    const changes = trace.ofKind("plugin.breaker_changed").map((event) => `${event.payload.from}->${event.payload.to}`);
    expect(changes).toEqual(["closed->open", "open->half_open", "half_open->closed"]);
  });

  it("leaves no process behind once closed", async () => {
    await Promise.all(hosts.map((host) => host.close()));
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain("fixtures/misbehaving");
  });
});
