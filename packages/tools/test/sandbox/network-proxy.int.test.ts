import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyRule, type ToolGrant } from "@rein/contracts";
import { builtinTools } from "../../src/builtin/builtin-tools.ts";
import type { ToolCallOutcome } from "../../src/tool-executor.ts";
import { call, harness } from "../../src/testing/executor-harness.ts";
import { workspacePerTest } from "../../src/testing/workspace-per-test.ts";

// A goal may grant run_command hosts; the program then reaches exactly those
// host:port pairs through a filtering proxy, and nothing else.

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((request, response) => response.end(`hello from ${request.url}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
const temp = workspacePerTest();

const allow = [PolicyRule.parse({ id: "allow-cmds", tool: "run_command", decision: "allow" })];
const surface: ToolGrant[] = [{ name: "run_command", scope: { commands: ["curl", "node"], hosts: ["127.0.0.1"] } }];

function runner(configHosts = [`127.0.0.1:${port}`]) {
  const { run, trace } = harness({
    tools: builtinTools({ commands: ["curl", "node"], hosts: configHosts }),
    surface,
    workspace: temp.workspace,
    policy: allow,
  });
  return {
    run: (command: string, args: string[], hosts?: string[]) => run(call("run_command", { command, args, ...(hosts ? { hosts } : {}) })),
    trace,
  };
}
const stdoutOf = (outcome: ToolCallOutcome) =>
  outcome.observation.content.split(/--- stdout[^\n]*---\n/)[1]?.split(/\n--- stderr/)[0] ?? "";

describe("granted hosts only, through the proxy", () => {
  it("reaches a granted host:port over plain HTTP and through a CONNECT tunnel", async () => {
    const { run } = runner();
    const plain = await run("curl", ["-s", "--max-time", "10", `http://127.0.0.1:${port}/plain`], [`127.0.0.1:${port}`]);
    expect(stdoutOf(plain)).toBe("hello from /plain");
    const tunnel = await run("curl", ["-s", "--max-time", "10", "--proxytunnel", `http://127.0.0.1:${port}/tunnel`], [`127.0.0.1:${port}`]);
    expect(stdoutOf(tunnel)).toBe("hello from /tunnel");
  });

  it("refuses another port of a granted host (Redis) and traces it", async () => {
    const { run, trace } = runner();
    const outcome = await run(
      "curl",
      ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "--proxytunnel", "http://127.0.0.1:6379/"],
      [`127.0.0.1:${port}`],
    );
    expect(stdoutOf(outcome)).toMatch(/^(403|000)$/);
    expect(trace.ofKind("tool.executed")[0]?.payload.networkRefused).toContain("127.0.0.1:6379");
  });

  it("has no way around the proxy: a direct socket to the granted host fails", async () => {
    const { run } = runner();
    const outcome = await run(
      "node",
      [
        "-e",
        `require("node:net").connect(${port}, "127.0.0.1", () => console.log("DIRECT")).on("error", (e) => console.log("REFUSED " + e.code))`,
      ],
      [`127.0.0.1:${port}`],
    );
    expect(stdoutOf(outcome)).toMatch(/^REFUSED/);
  });

  it("without hosts there is no network at all", async () => {
    const { run } = runner();
    const outcome = await run("curl", ["-s", "--max-time", "5", `http://127.0.0.1:${port}/`]);
    expect(stdoutOf(outcome)).not.toContain("hello");
  });

  it("refuses hosts outside the step's grant or the deployment's allowlist before anything runs", async () => {
    const { run, trace } = runner();
    const outsideGrant = await run("curl", ["-s", "http://localhost/"], ["localhost:80"]);
    expect(outsideGrant.observation.status).toBe("refused");
    const { run: runStrict } = runner(["api.example.com:443"]);
    const outsideConfig = await runStrict("curl", ["-s", `http://127.0.0.1:${port}/`], [`127.0.0.1:${port}`]);
    expect(outsideConfig.observation.status).toBe("error");
    expect(outsideConfig.observation.content).toContain(`127.0.0.1:${port} is not allowed`);
    expect(trace.ofKind("tool.executed")).toHaveLength(0);
  });
});
