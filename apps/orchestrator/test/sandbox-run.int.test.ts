import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunState, TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { type Harness, startHarness } from "./support/harness.ts";

/**
 * Hostile programs through a whole run: a worker's `run_command` and the
 * planner's acceptance check both try the host's side doors with the one
 * program the goal allows (node). Each is contained, the run goes on to its
 * end, and the trace names the sandbox and what the runtime killed.
 */
describe("hostile programs in a whole run stay inside the sandbox", () => {
  let harness: Harness;
  let state: RunState;
  let trace: TraceEvent[];
  let otherWorkspace: string;
  const forgedKey = `rein-forged-approval-${process.pid}`;

  /** Exits 0 only when every escape failed: the acceptance check passes only if the sandbox held. */
  const containedCheck = (paths: string[]) => `
const fs = require("node:fs");
let escaped = [];
for (const p of ${JSON.stringify(paths)}) { try { fs.readFileSync(p); escaped.push(p); } catch {} }
try { fs.writeFileSync("check-was-here.txt", "x"); escaped.push("wrote the workspace"); } catch {}
const s = require("node:net").connect(6379, "127.0.0.1", () => { escaped.push("redis"); done(); });
s.on("error", done);
function done() { console.log(JSON.stringify(escaped)); process.exit(escaped.length === 0 ? 0 : 1); }`;

  const readHost = (paths: string[]) =>
    `const fs = require("node:fs"); const out = {}; for (const p of ${JSON.stringify(paths)}) { try { out[p] = fs.readFileSync(p, "utf8").slice(0, 80); } catch (e) { out[p] = "ERR " + e.code; } } console.log(JSON.stringify(out));`;
  const writeRedis = `const s = require("node:net").connect(6379, "127.0.0.1", () => { s.write("SET ${forgedKey} approved\\r\\n"); console.log("CONNECTED"); s.end(); }); s.on("error", (e) => console.log("REFUSED " + e.code));`;
  const forkBomb = `const { spawn } = require("node:child_process"); let n = 0; setInterval(() => { for (let i = 0; i < 50; i++) { try { spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]).on("error", () => {}); n++; } catch {} } }, 10);`;

  beforeAll(async () => {
    const script = (paths: string[]): ModelScriptInput => ({
      planner: [
        {
          match: "Completed steps: none",
          turns: [
            {
              output: {
                current_step: {
                  title: "Probe the environment",
                  objective: "Run node to inspect the environment and report what it can reach.",
                  tools: ["run_command"],
                  acceptance_criteria: [
                    { kind: "command", description: "the sandbox held", argv: ["node", "-e", containedCheck(paths)], expectExitCode: 0 },
                  ],
                },
                done: false,
              },
            },
          ],
        },
        {
          match: "Completed steps: 1",
          turns: [
            {
              output: {
                current_step: null,
                next_steps: [],
                risks: [],
                done: true,
                answer: {
                  answer: "every probe was contained",
                  claims: [{ text: "node could not read host files", evidence: ["{{evidence:run_command}}"] }],
                  gaps: [],
                },
              },
            },
          ],
        },
      ],
      worker: [
        {
          match: "Task: Probe the environment",
          turns: [
            { toolCalls: [{ name: "run_command", input: { command: "node", args: ["-e", readHost(paths)] } }] },
            { toolCalls: [{ name: "run_command", input: { command: "node", args: ["-e", writeRedis] } }] },
            { toolCalls: [{ name: "run_command", input: { command: "node", args: ["-e", forkBomb], timeoutMs: 3_000 } }] },
            { text: "Every probe was refused or killed." },
          ],
        },
      ],
    });
    otherWorkspace = await mkdtemp(join(tmpdir(), "rein-other-run-"));
    await writeFile(join(otherWorkspace, "secret.txt"), "another run's file");
    // A goal's rules only tighten: the deployment allows node, as examples/bugfix's config does.
    const allowNode = { id: "allow-node", tool: "run_command", decision: "allow" as const, commands: ["node"] };
    harness = await startHarness(
      script([
        "/etc/shadow",
        "/root/.bashrc",
        join(otherWorkspace, "secret.txt"),
        join(process.cwd(), "package.json"),
        "/proc/1/root/etc/hostname",
      ]),
      [],
      { config: { policy: [allowNode] } },
    );
    const runId = await harness.submit({
      text: "Find out what this environment can reach",
      tools: [{ name: "run_command", scope: { commands: ["node"] } }],
      policy: [{ id: "allow-node", tool: "run_command", decision: "allow", commands: ["node"] }],
    });
    state = await harness.waitFor(runId);
    trace = await harness.runtime.trace.read(runId);
  }, 120_000);
  afterAll(async () => {
    await harness.runtime.redis.del(forgedKey);
    await harness.close();
    await rm(otherWorkspace, { recursive: true, force: true });
  });

  const executed = () => trace.filter((event) => event.kind === "tool.executed" && event.payload.tool === "run_command");

  it("goes on to the end of the run", () => {
    expect(state.status).toBe("done");
  });

  it("records the sandbox of every process the run started, the worker's and the check's", () => {
    expect(executed()).toHaveLength(3);
    for (const event of executed()) expect(event.payload.sandbox).toBe("bubblewrap");
    const check = trace.find((event) => event.kind === "check.command_finished");
    expect(check?.payload).toMatchObject({ sandbox: "bubblewrap", exitCode: 0 });
  });

  it("read nothing of the host, another run or the repository", () => {
    const seen = trace.find((event) => event.kind === "tool.executed" && String(event.payload.output ?? "").includes("/etc/shadow"));
    const output = String(seen?.payload.output ?? "");
    const json = JSON.parse(output.split("--- stdout ---\n")[1]?.split("\n")[0] ?? "{}") as Record<string, string>;
    expect(Object.keys(json).length).toBeGreaterThan(3);
    for (const value of Object.values(json)) expect(value).toMatch(/^ERR /);
  });

  it("could not reach Redis, so no forged record exists", async () => {
    expect(executed()[1]?.payload.output).toContain("REFUSED");
    expect(await harness.runtime.redis.get(forgedKey)).toBeNull();
  });

  it("killed the fork bomb at its timeout and says so", () => {
    expect(executed()[2]?.payload).toMatchObject({ killedBy: "timeout", sandbox: "bubblewrap" });
    expect(String(executed()[2]?.payload.output)).toContain("killed by the runtime after timeout");
  });

  it("passed the acceptance check only because the check itself was contained", () => {
    const verdict = trace.find((event) => event.kind === "verdict.ready");
    const checks = verdict?.payload.checks as { check: string; passed: boolean }[];
    expect(checks.find((check) => check.check === "the sandbox held")?.passed).toBe(true);
  });
});
