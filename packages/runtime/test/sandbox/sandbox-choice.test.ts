import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PolicyRule, type ToolGrant } from "@rein/contracts";
import { ReinConfig } from "../../src/config/config.ts";
import { resolveSandbox } from "@rein/sandbox";
import { builtinTools } from "@rein/tools";
import { call, harness, workspacePerTest } from "@rein/tools/testing";

const temp = workspacePerTest();

const allow = [PolicyRule.parse({ id: "allow-node", tool: "run_command", decision: "allow" })];
const surface: ToolGrant[] = [{ name: "run_command", scope: { commands: ["node"] } }];

describe("choosing the sandbox (config sandbox)", () => {
  it("defaults to auto", () => {
    expect(ReinConfig.parse({}).sandbox).toBe("auto");
    expect(() => ReinConfig.parse({ sandbox: "chroot" })).toThrow();
  });

  it("refuses to start a program when no sandbox can start, saying how to install one", async () => {
    const tools = builtinTools({ commands: ["node"], bwrapPath: "/nonexistent/bwrap" });
    const { run, trace } = harness({ tools, surface, workspace: temp.workspace, policy: allow });
    const outcome = await run(call("run_command", { command: "node", args: ["-e", "require('node:fs').writeFileSync('ran', 'x')"] }));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain("apt-get install bubblewrap");
    expect(trace.ofKind("tool.executed")[0]?.payload.error).toContain("no sandbox can start");
    expect(existsSync(join(temp.workspace.root, "ran"))).toBe(false);
  });

  it("refuses for an explicit bubblewrap too, and the error is typed", async () => {
    await expect(resolveSandbox("bubblewrap", { bwrapPath: "/nonexistent/bwrap" })).rejects.toMatchObject({ code: "sandbox_unavailable" });
  });

  it('runs unconfined only when config says "none", and records it', async () => {
    const tools = builtinTools({ commands: ["node"], sandbox: "none" });
    const { run, trace } = harness({ tools, surface, workspace: temp.workspace, policy: allow });
    const outcome = await run(call("run_command", { command: "node", args: ["-e", "console.log('ran')"] }));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("sandbox: none");
    expect(trace.ofKind("tool.executed")[0]?.payload.sandbox).toBe("none");
  });
});
