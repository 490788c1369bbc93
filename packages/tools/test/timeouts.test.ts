import { z } from "zod";
import { describe, expect, it } from "vitest";
import { PolicyRule } from "@rein/contracts";
import { defineTool } from "../src/define-tool.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

const temp = workspacePerTest();

/** A tool that never finishes on its own and notes whether its signal told it to stop. */
function hanging(effect: "read" | "write" | "external", idempotent: boolean) {
  const seen = { attempts: 0, abortedSignals: 0 };
  const tool = defineTool({
    name: "hang",
    description: "never finishes",
    effect,
    idempotent,
    input: z.object({}),
    timeoutMs: 30,
    run: (_args, context) => {
      seen.attempts += 1;
      return new Promise<string>((_, reject) => {
        context.signal.addEventListener("abort", () => {
          seen.abortedSignals += 1;
          reject(new Error("stopped"));
        });
      });
    },
  });
  return { tool, seen };
}

describe("a timeout aborts the work it times (issue 10 item 7)", () => {
  it("fires the tool's AbortSignal, so the work stops rather than running on in the background", async () => {
    const { tool, seen } = hanging("read", false);
    const { run } = harness({ tools: [tool], surface: [{ name: "hang", scope: {} }], workspace: temp.workspace });
    const outcome = await run(call("hang", {}));
    expect(outcome.observation.status).toBe("timeout");
    expect(seen.abortedSignals).toBe(seen.attempts);
  });

  it.each([
    ["a side-effecting tool even when declared idempotent", "write", true],
    ["an external tool declared idempotent", "external", true],
    ["a non-idempotent tool", "write", false],
    ["a non-idempotent read", "read", false],
  ] as const)("never retries %s after a timeout", async (_name, effect, idempotent) => {
    const { tool, seen } = hanging(effect, idempotent);
    const allow = PolicyRule.parse({ id: "allow-hang", tool: "hang", decision: "allow" });
    const { run } = harness({
      tools: [tool],
      surface: [{ name: "hang", scope: {} }],
      workspace: temp.workspace,
      policy: [allow],
      deps: { retry: { maxAttempts: 3, backoffMs: 1 } },
    });
    const outcome = await run(call("hang", {}));
    expect(outcome.observation.status).toBe("timeout");
    expect(seen.attempts).toBe(1);
    expect(outcome.result.attempts).toBe(1);
    // Its effect may have happened: the model is not told that the same call may simply work later.
    if (effect !== "read") expect(outcome.result.failure).not.toBe("retryable");
  });

  it("still retries an idempotent read that timed out, boundedly", async () => {
    const { tool, seen } = hanging("read", true);
    const { run } = harness({
      tools: [tool],
      surface: [{ name: "hang", scope: {} }],
      workspace: temp.workspace,
      deps: { retry: { maxAttempts: 2, backoffMs: 1 } },
    });
    const outcome = await run(call("hang", {}));
    expect(outcome.observation.status).toBe("timeout");
    expect(seen.attempts).toBe(2);
  });
});
