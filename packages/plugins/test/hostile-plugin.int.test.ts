import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, SecretBindings } from "@rein/guard";
import { loadPlugin } from "../src/load-plugin.ts";
import { PluginHost } from "../src/plugin-host.ts";
import { resolveSandbox } from "@rein/sandbox";
import type { Workspace } from "@rein/tools";
import { tempWorkspace } from "@rein/tools/testing";

// The Redis the tests use (REIN_REDIS_URL, REDIS_URL, else the local default), whose port a plugin must not reach.
const testRedisUrl = (): string => process.env.REIN_REDIS_URL || process.env.REDIS_URL || "redis://127.0.0.1:6379";

const dir = fileURLToPath(new URL("./fixtures/hostile", import.meta.url));
let workspace: Workspace;
let cleanup: () => Promise<void>;
let host: PluginHost;

beforeAll(async () => {
  ({ workspace, cleanup } = await tempWorkspace());
  host = new PluginHost(await loadPlugin(dir), {
    sandbox: () => resolveSandbox("bubblewrap"),
    // One secret declared by the plugin and bound to it, one bound elsewhere: only the first may arrive.
    secrets: SecretBindings.fromEnv(
      [
        { env: "DECLARED_TOKEN", tools: ["plugin:hostile"], hosts: [] },
        { env: "OTHER_TOKEN", tools: ["http_request"], hosts: [] },
      ],
      { DECLARED_TOKEN: "tok-declared-123", OTHER_TOKEN: "tok-other-456" },
    ),
    logger: createLogger({ level: "silent" }),
  });
});
afterAll(async () => {
  await host?.close();
  await cleanup();
});

describe("a hostile plugin under bubblewrap", () => {
  it("reaches the hosts its manifest declares through the proxy, and no other; without hosts it has no network", async () => {
    const servers: Server[] = [];
    const listen = async (name: string) => {
      const server = createServer((request, response) => response.end(`${name} saw ${request.url}`));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return (server.address() as AddressInfo).port;
    };
    const declared = await listen("declared");
    const other = await listen("other");
    const withHosts = mkdtempSync(join(tmpdir(), "rein-plugin-hosts-"));
    cpSync(dir, withHosts, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(withHosts, "plugin.json"), "utf8"));
    writeFileSync(join(withHosts, "plugin.json"), JSON.stringify({ ...manifest, name: "hostile-net", hosts: [`127.0.0.1:${declared}`] }));
    const networked = new PluginHost(await loadPlugin(withHosts), {
      sandbox: () => resolveSandbox("bubblewrap"),
      secrets: SecretBindings.none(),
      logger: createLogger({ level: "silent" }),
    });
    const site = { runId: "run_net", stepId: "s1", workspaceRoot: workspace.root };
    try {
      const fetch = async (plugin: PluginHost, port: number) =>
        ((await plugin.call("fetch", { url: `http://127.0.0.1:${port}/x` }, site)) as { output: string }).output;
      expect(await fetch(networked, declared)).toBe("200 declared saw /x");
      expect(await fetch(networked, other)).toMatch(/^403 rein sandbox: 127\.0\.0\.1:\d+ is not granted/);
      expect(await fetch(host, declared)).toBe("no proxy: no network");
    } finally {
      await networked.close();
      for (const server of servers) server.close();
    }
  });

  it("cannot read the keys directory, even where it lies inside the plugin's own directory", async () => {
    const withKeys = mkdtempSync(join(tmpdir(), "rein-plugin-keys-"));
    cpSync(dir, withKeys, { recursive: true });
    mkdirSync(join(withKeys, "keys"));
    writeFileSync(join(withKeys, "keys", "packet-private.pem"), "packet-key-canary");
    const keyed = new PluginHost(await loadPlugin(withKeys), {
      sandbox: () => resolveSandbox("bubblewrap"),
      hidden: [join(withKeys, "keys")],
      secrets: SecretBindings.none(),
      logger: createLogger({ level: "silent" }),
    });
    try {
      const redisPort = Number(new URL(testRedisUrl()).port || 6379);
      const result = await keyed.call(
        "probe",
        { hostFile: "/plugin/keys/packet-private.pem", redisPort },
        { runId: "run_keys", stepId: "s1", workspaceRoot: workspace.root },
      );
      expect((result as { output: Record<string, unknown> }).output.readHostFile).toMatch(/^refused/);
    } finally {
      await keyed.close();
      rmSync(withKeys, { recursive: true, force: true });
    }
  });

  it("gets only its declared secret, the workspace to write, no host files, no network, no other process", async () => {
    const redisPort = Number(new URL(testRedisUrl()).port || 6379);
    const result = await host.call(
      "probe",
      { hostFile: fileURLToPath(import.meta.url), redisPort },
      { runId: "run_hostile", stepId: "s1", workspaceRoot: workspace.root },
    );
    expect(result.ok).toBe(true);
    const report = (result as { output: Record<string, unknown> }).output;
    expect(report.declaredToken).toBe("tok-declared-123");
    expect(report.env).toEqual(["DECLARED_TOKEN", "HOME", "LANG", "PATH", "REIN_WORKSPACE"]);
    expect(report.readHostFile).toMatch(/^refused/);
    expect(report.readShadow).toMatch(/^refused/);
    expect(report.writePluginDir).toMatch(/^refused/);
    expect(report.writeWorkspace).toBe("allowed");
    expect(report.redis).toMatch(/^refused/);
    expect(report.processesVisible).toBeLessThan(5);
    expect(report.cwd).toBe("/plugin");
    expect(existsSync(join(workspace.root, "from-plugin.txt"))).toBe(true);
    expect(existsSync(join(dir, "planted.txt"))).toBe(false);
  });
});
