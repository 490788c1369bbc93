import { afterAll, describe, expect, it } from "vitest";
import { GENAI } from "@rein/runtime";
import { LiveDeployment } from "../support/live-deployment.ts";
import { OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.ts";

// Each role its own process, as an operator deploys them: the trace context must travel inside the jobs.
describe("live OpenTelemetry across processes", { timeout: 180_000 }, () => {
  let deployment: LiveDeployment | undefined;
  let receiver: OtlpReceiver | undefined;
  afterAll(async () => {
    await deployment?.stop();
    await receiver?.close();
  });

  it("exports one run's spans from separate controller, planner, worker and evaluator processes as one linked trace", async () => {
    receiver = await OtlpReceiver.start();
    deployment = await LiveDeployment.start({
      workers: [["plan"], ["step"], ["evaluate"]],
      config: { otel: { enabled: true } },
      // Batches leave on a timer all through the run; each process flushes the rest when it stops.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: "100" },
    });
    const runId = await deployment.submitSreTriage();
    await deployment.waitFor(runId, (state) => state.status === "waiting_approval");
    const { approvals } = await deployment.api<{ approvals: { approvalId: string; runId: string }[] }>("/approvals");
    const approval = approvals.find((pending) => pending.runId === runId);
    await deployment.api(`/approvals/${approval?.approvalId}/approve`, { method: "POST", body: JSON.stringify({}) });
    expect((await deployment.waitFor(runId, (state) => ["done", "failed", "cancelled", "escalated"].includes(state.status))).status).toBe(
      "done",
    );
    await deployment.stop();
    deployment = undefined;

    const traceId = receiver.spans.find((span) => span.attributes["rein.run.id"] === runId)?.traceId;
    expect(traceId, "a span of the run").toBeDefined();
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    // Nothing of the run leaked into another trace.
    expect(receiver.spans.filter((span) => span.attributes["rein.run.id"] === runId && span.traceId !== traceId)).toEqual([]);

    const services = (name: string) => new Set(spans.filter((span) => span.name === name).map((span) => span.service));
    expect(services("process plan")).toEqual(new Set(["rein-plan"]));
    expect(services("process step")).toEqual(new Set(["rein-step"]));
    expect(services("process evaluate")).toEqual(new Set(["rein-evaluate"]));
    expect(services("process control")).toEqual(new Set(["rein-serve"]));

    const byId = new Map(spans.map((span) => [span.spanId, span]));
    for (const span of spans)
      if (span.parentSpanId) expect(byId.has(span.parentSpanId), `parent of ${span.name} (${span.service}) exported`).toBe(true);
    const roots = spans.filter((span) => !span.parentSpanId);
    // The run: one root, where the goal was submitted (POST /runs on the serving process, which takes the run in
    // itself and adds its first plan); the approval decided later joins this trace through the context kept for it.
    expect(roots.map((span) => `${span.service} ${span.name}`)).toEqual(["rein-serve add plan.plan"]);
    const chain = (span: ReceivedSpan): ReceivedSpan[] => {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      return parent ? [parent, ...chain(parent)] : [];
    };
    const chats = spans.filter((span) => span.attributes[GENAI.operation] === "chat");
    const byRole = (role: string) => chats.filter((span) => span.attributes["rein.role"] === role);
    // run → step → model call, each in the process that made it.
    for (const [role, service, job] of [
      ["planner", "rein-plan", "process plan"],
      ["worker", "rein-step", "process step"],
      ["judge", "rein-evaluate", "process evaluate"],
    ] as const) {
      const calls = byRole(role);
      expect(calls.length, `${role} model calls`).toBeGreaterThan(0);
      for (const call of calls) {
        expect(call.service).toBe(service);
        const ancestors = chain(call);
        expect(ancestors[0]?.name).toBe(job);
        expect(ancestors.at(-1)).toBe(roots[0]);
      }
    }
    // run → step → tool call: the worker's tool spans sit under its step job.
    const tools = spans.filter((span) => span.attributes[GENAI.operation] === "execute_tool");
    expect(new Set(tools.map((span) => span.attributes[GENAI.toolName]))).toEqual(
      new Set(["search_logs", "query_metrics", "inspect_deployments", "read_host_state", "restart_service"]),
    );
    for (const tool of tools) {
      expect(tool.service).toBe("rein-step");
      expect(chain(tool).map((span) => span.name)).toContain("process step");
      expect(chain(tool).at(-1)).toBe(roots[0]);
    }
  });
});
