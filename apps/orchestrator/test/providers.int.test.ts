import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GoalInput, newId } from "@rein/contracts";
import { isTerminal, type RunState, type TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput, Price } from "@rein/models";
import type { LiveEvent } from "@rein/runtime";
import { defineTool, z } from "@rein/tools";
import { findTraceEvent } from "@rein/trace";
import { FakeServer, startScriptedWireServer } from "@rein/models/testing";
import { type ConfiguredHarness, startConfiguredHarness } from "./support/configured-harness.ts";
import { bugfixExample } from "./support/harness.ts";
import { REPOSITORY, TEST_MCP_SERVER_PATH } from "./support/core-fixtures.ts";

/** Distinctive values that must never show up in a log line, a trace event, a prompt copy or a run's state. */
const env = {
  PLANNER_KEY: "sk-ant-CANARY-planner-7e1f30c2d9",
  WORKER_KEY: "sk-proj-CANARY-worker-41d9aa07b3",
  LOCAL_KEY: "ollama-CANARY-judge-5b2c8e11f6",
  DEPLOY_TOKEN: "dtok-CANARY-tool-secret-93af",
};
const canaries = [...Object.values(env), "CANARY", "oncall.lead@example.com"];

const prices: Record<string, Price> = {
  "claude/claude-fake-planner": { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
  "gpt/gpt-fake-worker": { inputPerMTok: 0.15, outputPerMTok: 0.6, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
  "local/qwen-fake-judge": { inputPerMTok: 0.01, outputPerMTok: 0.02, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
};

/** A tool that handles a secret carelessly: it logs it and returns it, with an email, for the redactor to catch. */
const pageOncall = defineTool({
  name: "page_oncall",
  description: "Looks up who is on call. Reads DEPLOY_TOKEN. No side effects.",
  effect: "read",
  input: z.object({}),
  run: async (_args, context) => {
    const token = context.secrets.get("DEPLOY_TOKEN") ?? "missing";
    context.logger.warn({ token, contact: "oncall.lead@example.com" }, `paging with ${token}`);
    return `on call: oncall.lead@example.com (token ${token})`;
  },
});

/** rein.config.json for three providers, each a fake server of its kind; keys are named, never written. */
function configFor(servers: { planner: FakeServer; worker: FakeServer; judge: FakeServer }, worker: { contextTokens?: number } = {}) {
  return {
    providers: {
      claude: { kind: "anthropic" as const, baseURL: servers.planner.baseURL, apiKeyEnv: "PLANNER_KEY", maxRetries: 0 },
      gpt: { kind: "openai" as const, baseURL: servers.worker.baseURL, apiKeyEnv: "WORKER_KEY", maxRetries: 0 },
      local: { kind: "openai-compatible" as const, baseURL: servers.judge.baseURL, apiKeyEnv: "LOCAL_KEY", maxRetries: 0 },
    },
    roles: {
      planner: { provider: "claude", model: "claude-fake-planner" },
      worker: { provider: "gpt", model: "gpt-fake-worker", ...worker },
      evaluator: { provider: "local", model: "qwen-fake-judge" },
      judge: { provider: "local", model: "qwen-fake-judge" },
    },
    prices,
    secrets: [{ env: "DEPLOY_TOKEN", tools: ["page_oncall", "mcp:srv"] }],
    // What examples/bugfix/rein.config.json allows: node runs without a person.
    policy: [{ id: "bugfix:allow-node-tests", tool: "run_command", decision: "allow" as const, commands: ["node"] }],
    mcp: [
      {
        name: "srv",
        command: process.execPath,
        args: ["--import", "tsx", TEST_MCP_SERVER_PATH],
        mounts: [REPOSITORY],
        secretEnv: { TEST_TOKEN: "DEPLOY_TOKEN" },
        trustAnnotations: true,
      },
    ],
  };
}

/** The bugfix script and goal, with the worker also calling the MCP tool and the careless tool on its first turn. */
async function bugfixWithSecrets(): Promise<{ script: ModelScriptInput; goal: GoalInput; seedDir?: string }> {
  const { example, script } = await bugfixExample();
  const copy = structuredClone(script) as {
    planner: { turns: { output: { current_step?: { tools: string[] } | null } }[] }[];
    worker: { turns: { toolCalls?: unknown[] }[] }[];
  };
  copy.planner[0]?.turns[0]?.output.current_step?.tools.push("srv__env_token", "page_oncall");
  copy.worker[0]?.turns[0]?.toolCalls?.push({ name: "srv__env_token", input: {} }, { name: "page_oncall", input: {} });
  const goal = { ...example.goal, tools: [...(example.goal.tools ?? []), { name: "srv__env_token" }, { name: "page_oncall" }] };
  return { script: copy as ModelScriptInput, goal, seedDir: example.seedDir };
}

const everything = async (harness: ConfiguredHarness, runId: string) =>
  [
    JSON.stringify(await harness.runtime.trace.read(runId)),
    JSON.stringify(await harness.runtime.trace.readBlobs(runId)),
    JSON.stringify(await harness.runtime.runs.require(runId)),
    harness.logLines.join("\n"),
  ].join("\n");

const responded = (trace: TraceEvent[], role: string) =>
  trace.filter((event) => event.kind === "model.responded" && event.payload.role === role);

describe("planner on Anthropic, worker on OpenAI, judge on an OpenAI-compatible server, over the wire", () => {
  let servers: { planner: FakeServer; worker: FakeServer; judge: FakeServer };
  let harness: ConfiguredHarness;
  let state: RunState;
  let trace: TraceEvent[];
  const live: LiveEvent[] = [];
  const logLevel = process.env.REIN_LOG_LEVEL;

  beforeAll(async () => {
    // Every log line at every level is checked for secrets.
    process.env.REIN_LOG_LEVEL = "debug";
    const { script, goal, seedDir } = await bugfixWithSecrets();
    servers = {
      planner: await startScriptedWireServer({ format: "anthropic", role: "planner", script, model: "claude-fake-planner" }),
      worker: await startScriptedWireServer({ format: "openai", role: "worker", script, model: "gpt-fake-worker" }),
      judge: await startScriptedWireServer({ format: "openai-compatible", role: "judge", script, model: "qwen-fake-judge" }),
    };
    harness = await startConfiguredHarness({ config: configFor(servers), env, extraTools: [pageOncall] });

    const runId = newId("run");
    let heardLastDelta: () => void = () => {};
    const lastDelta = new Promise<void>((resolve) => {
      heardLastDelta = resolve;
    });
    const subscription = await harness.runtime.live.subscribe(runId, (event) => {
      live.push(event);
      if (textOf(live).endsWith("`node --test` passes.")) heardLastDelta();
    });
    try {
      await harness.submit(goal, { runId, workspaceDir: seedDir });
      state = await harness.waitFor(runId);
      await lastDelta;
    } finally {
      await subscription.close();
    }
    trace = await harness.runtime.trace.read(runId);
  });

  afterAll(async () => {
    await harness?.close();
    await Promise.all(Object.values(servers ?? {}).map((server) => server.stop()));
    if (logLevel === undefined) delete process.env.REIN_LOG_LEVEL;
    else process.env.REIN_LOG_LEVEL = logLevel;
  });

  it("finishes done, with each role served by its own server in its own wire format", () => {
    expect(state.status).toBe("done");
    expect(state.result?.answer?.answer).toMatch(/a \+ b/);
    expect(servers.planner.requests.map((request) => request.url)).toEqual(["/v1/messages", "/v1/messages"]);
    // Structured output through output_config.format: current Claude models refuse a forced tool
    // (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported).
    expect(servers.planner.requests[0]?.body.output_config).toMatchObject({ format: { type: "json_schema" } });
    expect(servers.worker.requests.length).toBe(7);
    expect(servers.worker.requests.every((request) => request.url === "/v1/chat/completions" && request.body.stream === true)).toBe(true);
    expect(servers.judge.requests.length).toBeGreaterThanOrEqual(1);
    expect(String((servers.judge.requests[0]?.body.messages as { content: string }[] | undefined)?.[0]?.content)).toContain(
      "Reply with one JSON value only",
    );
    // Each server got its own key, so the checks for leaks below are not vacuous.
    expect(servers.planner.requests[0]?.headers.authorization).toBe(`Bearer ${env.PLANNER_KEY}`);
    expect(servers.worker.requests[0]?.headers.authorization).toBe(`Bearer ${env.WORKER_KEY}`);
    expect(servers.judge.requests[0]?.headers.authorization).toBe(`Bearer ${env.LOCAL_KEY}`);
  });

  it("records which provider and model served every call, with its tokens and its cost from the price table", () => {
    const expected = {
      planner: ["claude", "anthropic", "claude-fake-planner"],
      worker: ["gpt", "openai", "gpt-fake-worker"],
      judge: ["local", "openai-compatible", "qwen-fake-judge"],
    };
    for (const [role, [provider, kind, model]] of Object.entries(expected)) {
      const called = trace.filter((event) => event.kind === "model.called" && event.payload.role === role);
      const answers = responded(trace, role);
      expect(answers.length).toBeGreaterThan(0);
      expect(answers).toHaveLength(called.length);
      for (const event of called) expect(event.payload).toMatchObject({ provider, kind, model });
      for (const event of answers) {
        expect(event.payload).toMatchObject({ provider, model });
        const usage = event.usage;
        expect(usage?.inputTokens).toBeGreaterThan(0);
        expect(usage?.outputTokens).toBeGreaterThan(0);
        const price = prices[`${provider}/${model}`] as Price;
        expect(usage?.costUsd).toBeCloseTo(
          ((usage?.inputTokens ?? 0) * price.inputPerMTok + (usage?.outputTokens ?? 0) * price.outputPerMTok) / 1_000_000,
          12,
        );
      }
    }
    expect(responded(trace, "worker")).toHaveLength(7);
    expect(state.spent.costUsd).toBeGreaterThan(0);
  });

  it("streamed the worker's text to the run's live channel as it arrived", () => {
    const worker = live.filter((event) => event.role === "worker");
    const text = textOf(worker);
    expect(worker.length).toBeGreaterThan(10);
    expect(live.every((event) => event.runId === state.runId && ["planner", "worker", "judge"].includes(event.role))).toBe(true);
    expect(worker.every((event) => event.stepId === "s1")).toBe(true);
    expect(text).toBe(
      "Let me look at the project.add() subtracts. I'll try a fix.That fix is wrong for negative numbers; the sum is simply a + b." +
        "add() returned a - b instead of a + b; it now returns a + b and `node --test` passes.",
    );
    expect(trace.some((event) => event.kind.startsWith("live."))).toBe(false);
  });

  it("ran the MCP tool and the careless tool, with the secret and the email redacted from what the model saw", () => {
    const flagsOf = (tool: string) =>
      trace.find((event) => event.kind === "observation.made" && event.payload.tool === tool)?.payload.flags;
    expect(flagsOf("srv__env_token")).toEqual(["secret_redacted"]);
    expect(flagsOf("page_oncall")).toEqual(["pii_redacted", "secret_redacted"]);
    // The model's next request carried the redacted observations, never the values.
    const toolMessages = ((servers.worker.requests[1]?.body.messages as { role: string; content: string }[] | undefined) ?? []).filter(
      (message) => message.role === "tool",
    );
    expect(toolMessages.map((message) => message.content).join("\n")).toMatch(
      /token=\[REDACTED:secret\][\s\S]*on call: \[REDACTED:pii\] \(token \[REDACTED:secret\]\)/,
    );
    const second = JSON.stringify(servers.worker.requests[1]?.body);
    expect(second).not.toContain(env.DEPLOY_TOKEN);
  });

  it("never lets an API key, a tool secret or PII reach the logs, the trace, the prompt copies or the run state", async () => {
    expect(harness.logLines.some((line) => line.includes("paging with [REDACTED:secret]"))).toBe(true);
    const all = await everything(harness, state.runId);
    for (const canary of canaries) expect(all).not.toContain(canary);
  });
});

describe("a role whose provider refuses its key", () => {
  it("records a 401 as the step's failure without the key, in the trace, the logs or the run state", async () => {
    const { script, goal, seedDir } = await bugfixWithSecrets();
    const refusing = await new FakeServer(() => ({
      status: 401,
      // Providers echo (part of) a bad key; the fake echoes all of it, the worst case.
      json: {
        error: {
          message: `Incorrect API key provided: ${env.WORKER_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
      headers: { "x-request-id": "req_401" },
    })).start("/v1");
    const planner = await startScriptedWireServer({ format: "anthropic", role: "planner", script, model: "claude-fake-planner" });
    const judge = await startScriptedWireServer({ format: "openai-compatible", role: "judge", script, model: "qwen-fake-judge" });
    const harness = await startConfiguredHarness({
      config: configFor({ planner, worker: refusing, judge }),
      env,
      extraTools: [pageOncall],
    });
    try {
      const runId = await harness.submit({ ...goal, budget: { maxSteps: 2, maxTokens: 200_000 } }, { workspaceDir: seedDir });
      // Until the evaluator has judged the failed step (or the run has stopped).
      const judged = await harness.waitFor(
        runId,
        (current) =>
          current.steps.some((step) => step.decision !== undefined) || isTerminal(current.status) || current.status === "escalated",
      );
      const events = await harness.runtime.trace.read(runId);

      expect(refusing.requests[0]?.headers.authorization).toBe(`Bearer ${env.WORKER_KEY}`);
      const failure = findTraceEvent(events, "model.failed", (event) => event.payload.role === "worker");
      expect(failure?.payload).toMatchObject({ provider: "gpt", model: "gpt-fake-worker" });
      expect(String(failure?.payload.error)).toMatch(/401/);
      // The provider's message is kept, with the key it echoed cut out.
      expect(String(failure?.payload.error)).toMatch(/Incorrect API key provided: \[REDACTED/);
      const finished = events.find((event) => event.kind === "step.finished");
      expect(finished?.payload).toMatchObject({ status: "failed" });
      expect(String(finished?.payload.error)).toMatch(/401/);
      expect(judged.status).not.toBe("done");

      const all = await everything(harness, runId);
      for (const canary of canaries) expect(all).not.toContain(canary);
    } finally {
      await harness.close();
      await Promise.all([refusing, planner, judge].map((server) => server.stop()));
    }
  });
});

describe("a worker whose context budget is smaller than its history", () => {
  it("drops the oldest tool results, tells the model which, records context.compacted, and still finishes", async () => {
    const { script, goal, seedDir } = await bugfixWithSecrets();
    const servers = {
      planner: await startScriptedWireServer({ format: "anthropic", role: "planner", script, model: "claude-fake-planner" }),
      worker: await startScriptedWireServer({ format: "openai", role: "worker", script, model: "gpt-fake-worker" }),
      judge: await startScriptedWireServer({ format: "openai-compatible", role: "judge", script, model: "qwen-fake-judge" }),
    };
    const harness = await startConfiguredHarness({ config: configFor(servers, { contextTokens: 300 }), env, extraTools: [pageOncall] });
    try {
      const runId = await harness.submit(goal, { workspaceDir: seedDir });
      const state = await harness.waitFor(runId);
      const events = await harness.runtime.trace.read(runId);
      expect(state.status).toBe("done");

      const compacted = events.filter((event) => event.kind === "context.compacted");
      const last = compacted.at(-1)?.payload as {
        dropped: { observationId: string; tool: string }[];
        budgetTokens: number;
        overBudget: boolean;
      };
      expect(last.budgetTokens).toBe(300);
      // Before the last call: every result but the last turn's (one run_command) was dropped, oldest first.
      const observed = events.filter((event) => event.kind === "observation.made").map((event) => String(event.payload.observationId));
      expect(last.dropped.map((entry) => entry.observationId)).toEqual(observed.slice(0, -1));
      expect(last.dropped[0]?.tool).toBe("list_files");

      const lastRequest = servers.worker.requests.at(-1)?.body.messages as { role: string; content: string }[];
      const toolContents = lastRequest.filter((message) => message.role === "tool").map((message) => message.content);
      expect(toolContents.slice(0, -1).every((content) => content.startsWith("[dropped to fit the context budget"))).toBe(true);
      expect(toolContents.at(-1)).toMatch(/exit code: 0/);
      const note = lastRequest.at(-1);
      expect(note?.role).toBe("user");
      expect(note?.content).toContain(
        `${observed.length - 1} earlier tool results (${observed.slice(0, -1).join(", ")}) were dropped to fit the context budget`,
      );
      // The task message is never dropped.
      expect(lastRequest.find((message) => message.role === "user")?.content).toContain("Task: Fix add() so the tests pass");
    } finally {
      await harness.close();
      await Promise.all(Object.values(servers).map((server) => server.stop()));
    }
  });
});

/** The text the live events carry, in order. */
function textOf(events: readonly LiveEvent[]): string {
  return events.map((event) => (event.type === "text_delta" ? event.text : "")).join("");
}
