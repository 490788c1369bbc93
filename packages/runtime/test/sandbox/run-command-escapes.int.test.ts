import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PolicyRule, type ToolGrant } from "@rein/contracts";
import { SecretBindings } from "@rein/guard";
import { builtinTools, type ToolCallOutcome, type Workspace } from "@rein/tools";
import { call, harness, tempWorkspace } from "@rein/tools/testing";
import { redisForTest } from "../tools/redis-harness.ts";

// An allowed interpreter (node) is all a model needs to try every side door
// of the host; these are the escapes issue 10 reported, as a model would try them.

let workspace: Workspace;
let cleanupWorkspace: () => Promise<void>;
let otherRun: string;
let env: ReturnType<typeof redisForTest>;

beforeEach(async () => {
  ({ workspace, cleanup: cleanupWorkspace } = await tempWorkspace());
  otherRun = await mkdtemp(join(tmpdir(), "rein-other-run-"));
  await writeFile(join(otherRun, "secret.txt"), "another run's private file");
  env = redisForTest();
});
afterEach(async () => {
  await env.close();
  await cleanupWorkspace();
  await rm(otherRun, { recursive: true, force: true });
});

const allowNode = PolicyRule.parse({ id: "allow-node", tool: "run_command", commands: ["node"], decision: "allow" });
const surface: ToolGrant[] = [{ name: "run_command", scope: { commands: ["node"] } }];

function node(script: string, extra: Record<string, unknown> = {}) {
  const { run, trace } = harness({ tools: builtinTools({ commands: ["node"] }), surface, workspace, policy: [allowNode] });
  return { outcome: run(call("run_command", { command: "node", args: ["-e", script], ...extra })), trace };
}

function stdoutOf(outcome: ToolCallOutcome): string {
  return outcome.observation.content.split(/--- stdout[^\n]*---\n/)[1]?.split(/\n--- stderr/)[0] ?? "";
}

/** Tries each path and prints what it could read, one JSON line. */
const readEach = (paths: readonly string[]) => `
const fs = require("node:fs");
const seen = {};
for (const p of ${JSON.stringify(paths)}) { try { seen[p] = fs.readFileSync(p, "utf8").slice(0, 200); } catch (e) { seen[p] = "ERR " + e.code; } }
process.stdout.write(JSON.stringify(seen));`;

describe("run_command cannot reach outside its run (issue 10 item 1)", () => {
  it("cannot read host files, another run's workspace or the repository", async () => {
    const repoFile = join(process.cwd(), "package.json");
    const targets = ["/etc/shadow", "/etc/hostname", "/root/.bashrc", join(otherRun, "secret.txt"), repoFile, "/proc/1/root/etc/shadow"];
    const { outcome } = node(readEach(targets));
    const result = await outcome;
    expect(result.observation.status).toBe("ok");
    const seen = JSON.parse(stdoutOf(result)) as Record<string, string>;
    for (const target of targets) expect(seen[target], target).toMatch(/^ERR /);
  });

  it("sees no host user list: /etc/passwd names only the sandbox's own user", async () => {
    const result = await node(readEach(["/etc/passwd"])).outcome;
    const seen = JSON.parse(stdoutOf(result)) as Record<string, string>;
    const passwd = seen["/etc/passwd"] ?? "";
    const hostUsers = ["daemon:", "bin:", "sys:", "www-data:", "nobody:"];
    for (const user of hostUsers) expect(passwd).not.toContain(user);
  });

  it("cannot read the parent's environment through /proc", async () => {
    // The test runner's own environment (VITEST_*) is in the initial environ of this process and its parents.
    expect(process.env.VITEST).toBeDefined();
    const result = await node(`
const fs = require("node:fs");
const found = [];
const pids = new Set([String(process.ppid), "1", "${process.pid}"]);
try { for (const name of fs.readdirSync("/proc")) if (/^\\d+$/.test(name)) pids.add(name); } catch {}
for (const pid of pids) {
  try { if (fs.readFileSync("/proc/" + pid + "/environ", "utf8").includes("VITEST")) found.push(pid); } catch {}
}
process.stdout.write(JSON.stringify({ found, env: Object.keys(process.env).sort() }));`).outcome;
    const seen = JSON.parse(stdoutOf(result)) as { found: string[]; env: string[] };
    expect(seen.found).toEqual([]);
    expect(seen.env).toEqual(["HOME", "LANG", "PATH"]);
  });

  it("cannot connect to Redis or write to it", async () => {
    const key = env.keys.approval("forged");
    const result = await node(`
const net = require("node:net");
const socket = net.connect({ host: "127.0.0.1", port: 6379 }, () => {
  socket.write("*3\\r\\n$3\\r\\nSET\\r\\n$${Buffer.byteLength(key)}\\r\\n${key}\\r\\n$8\\r\\napproved\\r\\n");
  socket.on("data", (d) => { process.stdout.write("CONNECTED " + d); socket.end(); });
});
socket.on("error", (e) => process.stdout.write("REFUSED " + e.code));`).outcome;
    expect(stdoutOf(result)).toMatch(/^REFUSED /);
    expect(await env.redis.get(key)).toBeNull();
  });

  it("cannot open a socket to any outside host", async () => {
    const result = await node(`
require("node:dns").lookup("example.com", (e) => process.stdout.write(e ? "NO-DNS " : "DNS "));
const s = require("node:net").connect({ host: "1.1.1.1", port: 80, timeout: 2000 }, () => { process.stdout.write("CONNECTED"); s.end(); });
s.on("error", (e) => process.stdout.write("REFUSED " + e.code));
s.on("timeout", () => { process.stdout.write("REFUSED timeout"); s.destroy(); });`).outcome;
    expect(stdoutOf(result)).toMatch(/NO-DNS/);
    expect(stdoutOf(result)).toMatch(/REFUSED/);
  });

  it("can still write inside its own workspace, which is its HOME", async () => {
    await mkdir(join(workspace.root, "src"), { recursive: true });
    const { outcome, trace } = node(
      `require("node:fs").writeFileSync("src/out.txt", "hi"); process.stdout.write(process.env.HOME === process.cwd() ? "home" : "elsewhere");`,
      { cwd: "." },
    );
    const result = await outcome;
    expect(result.observation.status).toBe("ok");
    expect(stdoutOf(result)).toBe("home");
    expect(await readFile(join(workspace.root, "src/out.txt"), "utf8")).toBe("hi");
    expect(trace.ofKind("tool.executed")[0]?.payload).toMatchObject({ sandbox: "bubblewrap", exitCode: 0 });
  });

  it("gets exactly the secrets config binds to run_command in its environment", async () => {
    const secrets = SecretBindings.fromEnv(
      [
        { env: "BOUND_TOKEN", tools: ["run_command"], hosts: [] },
        { env: "OTHER_TOKEN", tools: ["http_request"], hosts: [] },
      ],
      { BOUND_TOKEN: "bound-value", OTHER_TOKEN: "other-value" },
    );
    const { run } = harness({ tools: builtinTools({ commands: ["node"] }), surface, workspace, policy: [allowNode], deps: { secrets } });
    const result = await run(
      call("run_command", { command: "node", args: ["-e", "process.stdout.write(JSON.stringify(Object.keys(process.env).sort()))"] }),
    );
    expect(JSON.parse(stdoutOf(result))).toEqual(["BOUND_TOKEN", "HOME", "LANG", "PATH"]);
  });
});
