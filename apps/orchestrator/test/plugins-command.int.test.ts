import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createLogger, SecretBindings } from "@rein/guard";
import { loadPlugins } from "@rein/plugins";
import { unsandboxed } from "@rein/sandbox";
import { createTestRuntime } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { publishPluginStatus } from "@rein/controller";
import { cliEnv, rein } from "./support/cli.ts";

const REPO = resolve(import.meta.dirname, "../../..");
const INCIDENT = join(REPO, "examples/plugins/incident-python");
const MISBEHAVING = join(REPO, "packages/plugins/test/fixtures/misbehaving");

function configFile(content: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "rein-plugins-cli-"));
  const file = join(dir, "rein.config.json");
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe("rein plugins", { timeout: 60_000 }, () => {
  it("check: validates, starts in the sandbox, handshakes, pings and calls each example", async () => {
    const result = await rein(["plugins", "check", INCIDENT], cliEnv());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("manifest: ok: incident-python 1.0.0");
    expect(result.stdout).toContain("sandbox: bubblewrap");
    expect(result.stdout).toMatch(/start \+ handshake: ok in \d+ ms/);
    expect(result.stdout).toMatch(/ping: ok in \d+ ms/);
    expect(result.stdout).toMatch(/call read_host_state \{"service":"payment-api"\}: ok in \d+ ms, matches output_schema/);
    expect(result.stdout).toContain("call restart_service: skipped (no example in plugin.json)");
    expect(result.stdout).toContain("result: ok");
  });

  it("check: the minimal plugin of docs/plugins.md, written from the page alone, works", async () => {
    const page = readFileSync(join(REPO, "docs/plugins.md"), "utf8");
    const python = [...page.matchAll(/```python\n([\s\S]*?)```/g)].at(-1)?.[1];
    const manifest = [...page.matchAll(/```json\n([\s\S]*?)```/g)].at(-1)?.[1];
    const dir = mkdtempSync(join(tmpdir(), "rein-doc-plugin-"));
    writeFileSync(join(dir, "shout.py"), python ?? "");
    writeFileSync(join(dir, "plugin.json"), manifest ?? "");
    const result = await rein(["plugins", "check", dir], cliEnv());
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/call shout \{"text":"hello"\}: ok in \d+ ms, matches output_schema/);
    expect(result.stdout).toContain("| HELLO");
  });

  it("check --workspace runs the examples over a copy of your files, so an example reading one can pass", async () => {
    const plugin = mkdtempSync(join(tmpdir(), "rein-reading-plugin-"));
    cpSync(join(REPO, "examples/plugins/text-node"), plugin, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(plugin, "plugin.json"), "utf8"));
    manifest.tools[0].example = { path: "notes.txt" };
    writeFileSync(join(plugin, "plugin.json"), JSON.stringify(manifest));
    const files = mkdtempSync(join(tmpdir(), "rein-check-files-"));
    writeFileSync(join(files, "notes.txt"), "one two three\n");

    const empty = await rein(["plugins", "check", plugin], cliEnv());
    expect(empty.code).toBe(1);
    expect(empty.stdout).toMatch(/call word_count \{"path":"notes\.txt"\}: answered an error/);
    const seeded = await rein(["plugins", "check", plugin, "--workspace", files], cliEnv());
    expect(seeded.code, seeded.stdout + seeded.stderr).toBe(0);
    expect(seeded.stdout).toMatch(/call word_count \{"path":"notes\.txt"\}: ok in \d+ ms/);
    expect(seeded.stdout).toMatch(/"words": 3/);
    // A copy: what the check's calls do stays out of your directory.
    expect(readdirSync(files)).toEqual(["notes.txt"]);
  });

  it("check: a manifest with a wrong field fails with the field named", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rein-bad-plugin-"));
    writeFileSync(join(dir, "plugin.json"), JSON.stringify({ name: "Bad Name", version: "1", protocol: 2, command: [], tools: [] }));
    const result = await rein(["plugins", "check", dir], cliEnv());
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("manifest: INVALID");
    expect(result.stdout).toContain("name: expected a plugin name");
    expect(result.stdout).toContain("protocol: expected protocol 1");
    expect(result.stdout).toContain("command: expected at least the program");
  });

  it("list: shows each configured plugin's tools, and the breaker and processes a running Rein reports", async () => {
    const runtime = await createTestRuntime();
    const plugins = await loadPlugins([{ path: MISBEHAVING, enabled: true, start: "first_use" }], {
      sandbox: async () => unsandboxed,
      secrets: SecretBindings.none(),
      logger: createLogger({ level: "silent" }),
    });
    try {
      const [host] = plugins.hosts;
      const workspaceRoot = mkdtempSync(join(tmpdir(), "rein-plugins-ws-"));
      const answer = await host?.call("echo", { text: "hi" }, { runId: "run_listed", stepId: "s1", workspaceRoot });
      expect(answer?.ok).toBe(true);
      const unpublish = publishPluginStatus(runtime, plugins);
      const env = cliEnv({ REIN_PREFIX: runtime.config.prefix });
      const config = configFile({ plugins: [{ path: MISBEHAVING }, { path: INCIDENT, enabled: false }] });
      const listed = await rein(["plugins", "list", "--config", config], env);
      await unpublish();
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(`misbehaving 1.0.0  enabled  persistent  ${MISBEHAVING}`);
      expect(listed.stdout).toContain("tools: echo (read), fail (read)");
      expect(listed.stdout).toMatch(/breaker closed \(0 recent failures\), restarts 0, 1 running process\(es\)/);
      expect(listed.stdout).toMatch(/run_listed: running pid \d+, 0 in flight, 0 queued/);
      expect(listed.stdout).toContain("incident-python 1.0.0  disabled");
      expect(listed.stdout).toContain("state: not running in any Rein process on this prefix");
    } finally {
      await plugins.close();
      await runtime.cleanup();
    }
  });
});
