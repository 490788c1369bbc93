import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Redactor, SecretBindings } from "@rein/guard";
import { defineTool } from "../src/define-tool.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

const temp = workspacePerTest();

describe("budget", () => {
  let runs = 0;
  const ping = defineTool({
    name: "ping",
    description: "ping",
    effect: "read",
    input: z.object({}),
    run: async () => {
      runs += 1;
      return "pong";
    },
  });

  it("refuses a call past the step's tool-call budget or deadline", async () => {
    runs = 0;
    const { run, trace } = harness({ tools: [ping], surface: [{ name: "ping", scope: {} }], workspace: temp.workspace });
    const over = await run(call("ping", {}), { callsSoFar: 30, budget: { maxToolCalls: 30, deadline: Date.now() + 60_000 } });
    expect(over.observation.status).toBe("budget_exhausted");
    expect(over.observation.content).toContain("used all 30 of its tool calls");
    const late = await run(call("ping", {}), { budget: { maxToolCalls: 30, deadline: Date.now() - 1 } });
    expect(late.observation.status).toBe("budget_exhausted");
    expect(trace.ofKind("tool.budget_exhausted")).toHaveLength(2);
    expect(runs).toBe(0);
    const within = await run(call("ping", {}), { callsSoFar: 29 });
    expect(within.observation.status).toBe("ok");
    expect(runs).toBe(1);
  });
});

describe("secrets", () => {
  it("gives tools credentials only through the reader and redacts them from observations and trace", async () => {
    const secrets = SecretBindings.fromEnv([{ env: "SERVICE_TOKEN", tools: ["whoami"], hosts: [] }], { SERVICE_TOKEN: "tok_9f8e7d6c5b4a" });
    const redactor = new Redactor({ secrets: secrets.values() });
    const leaky = defineTool({
      name: "whoami",
      description: "echoes its credential, as a buggy tool might",
      effect: "read",
      input: z.object({ contact: z.string() }),
      run: async (_args, context) => `token=${context.secrets.get("SERVICE_TOKEN")} env=${process.env.SERVICE_TOKEN ?? "unset"}`,
    });
    const { run, trace } = harness({
      tools: [leaky],
      surface: [{ name: "whoami", scope: {} }],
      workspace: temp.workspace,
      deps: { secrets, redactor },
    });
    const outcome = await run(call("whoami", { contact: "jane.doe@example.com" }));
    expect(outcome.observation.content).toContain("token=[REDACTED:secret]");
    expect(outcome.observation.flags).toContain("secret_redacted");
    const traced = JSON.stringify(trace.events);
    expect(traced).not.toContain("tok_9f8e7d6c5b4a");
    expect(traced).not.toContain("jane.doe@example.com");
  });
});
