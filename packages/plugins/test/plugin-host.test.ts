import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, SecretBindings } from "@rein/guard";
import { loadPlugin } from "../src/load-plugin.ts";
import { PluginHost, type PluginSupervision } from "../src/plugin-host.ts";
import { loadPlugins } from "../src/plugin-set.ts";
import { unsandboxed } from "@rein/sandbox";
import type { Workspace } from "@rein/tools";
import { tempWorkspace } from "@rein/tools/testing";

const TEXT_NODE = fileURLToPath(new URL("../../../examples/plugins/text-node", import.meta.url));
const MISBEHAVING = fileURLToPath(new URL("./fixtures/misbehaving", import.meta.url));
const NEVER_READY = fileURLToPath(new URL("./fixtures/never-ready", import.meta.url));

let workspace: Workspace;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ workspace, cleanup } = await tempWorkspace());
});
afterAll(async () => cleanup());

async function hostOf(dir: string, supervision: PluginSupervision = {}) {
  return new PluginHost(await loadPlugin(dir), {
    sandbox: async () => unsandboxed,
    secrets: SecretBindings.none(),
    logger: createLogger({ level: "silent" }),
    supervision,
  });
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition never held");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("PluginHost", () => {
  it("per_call: each call is a process of its own, and nothing is kept between calls", async () => {
    const host = await hostOf(TEXT_NODE);
    try {
      for (const text of ["a b", "c d e"]) {
        const result = await host.call("word_count", { text }, { runId: "run_a", stepId: "s1", workspaceRoot: workspace.root });
        expect(result).toMatchObject({ ok: true, output: { words: text.split(" ").length } });
      }
      expect(host.status()).toMatchObject({ mode: "per_call", processes: [], restarts: 0, breaker: "closed" });
    } finally {
      await host.close();
    }
  });

  it("persistent: one process per run's workspace, stopped when idle, and the run forgotten", async () => {
    const host = await hostOf(MISBEHAVING, { idleMs: 2_000 });
    const other = await tempWorkspace();
    try {
      const pidIn = async (runId: string, workspaceRoot: string) => {
        const result = await host.call("echo", { text: runId }, { runId, stepId: "s1", workspaceRoot });
        return (result as { output: { pid: number } }).output.pid;
      };
      const first = await pidIn("run_a", workspace.root);
      expect(await pidIn("run_a", workspace.root)).toBe(first);
      expect(await pidIn("run_b", other.workspace.root)).not.toBe(first);
      expect(host.status().processes.map((process) => process.runId)).toContain("run_b");
      await until(() => host.status().processes.length === 0);
    } finally {
      await host.close();
      await other.cleanup();
    }
  });
});

describe("loadPlugins", () => {
  const options = { sandbox: async () => unsandboxed, secrets: SecretBindings.none(), logger: createLogger({ level: "silent" }) };

  it("start: role_start proves a plugin can start before any run, and leaves no process", async () => {
    const plugins = await loadPlugins([{ path: MISBEHAVING, enabled: true, start: "role_start" }], options);
    try {
      expect(plugins.tools.map((tool) => tool.name)).toContain("echo");
      expect(plugins.status()[0]?.processes).toEqual([]);
    } finally {
      await plugins.close();
    }
  });

  it("start: role_start refuses a plugin that never says ready, naming it", async () => {
    await expect(loadPlugins([{ path: NEVER_READY, enabled: true, start: "role_start" }], options)).rejects.toThrow(
      /plugin never-ready \(.*never-ready\) failed its start check: .*handshake/,
    );
  });

  it("refuses two plugins offering the same tool, and skips disabled ones", async () => {
    await expect(
      loadPlugins(
        [
          { path: MISBEHAVING, enabled: true, start: "first_use" },
          { path: NEVER_READY, enabled: true, start: "first_use" },
        ],
        options,
      ),
    ).rejects.toThrow(/tool echo is offered by plugin misbehaving and plugin never-ready/);
    const one = await loadPlugins(
      [
        { path: MISBEHAVING, enabled: true, start: "first_use" },
        { path: NEVER_READY, enabled: false, start: "role_start" },
      ],
      options,
    );
    expect(one.hosts.map((host) => host.name)).toEqual(["misbehaving"]);
    await one.close();
  });
});
