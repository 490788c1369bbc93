import { afterAll, describe, expect, it } from "vitest";
import { newId } from "@rein/contracts";
import { GENAI, stopOtel } from "@rein/runtime";
import { submitGoal } from "@rein/controller";
import { bugfixExample, type Harness, startHarness } from "../support/harness.ts";
import { OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.ts";

describe("live OpenTelemetry (otel.enabled)", () => {
  let harness: Harness | undefined;
  let receiver: OtlpReceiver | undefined;
  afterAll(async () => {
    await harness?.close();
    await stopOtel();
    await receiver?.close();
  });

  it("exports one run's spans from the planner, worker and evaluator as one trace, with GenAI attributes", async () => {
    receiver = await OtlpReceiver.start();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    // Batches leave on a timer all through the run, so the flush at the end finds some still in flight.
    process.env.OTEL_BSP_SCHEDULE_DELAY = "50";
    const { example, script } = await bugfixExample();
    harness = await startHarness(script, [], { config: { ...example.config, otel: { enabled: true, serviceName: "rein-test" } } });
    const runId = newId("run");
    await submitGoal(harness.runtime, example.goal, { knownTools: harness.tooling.registry.names(), runId, workspaceDir: example.seedDir });
    expect((await harness.waitFor(runId)).status).toBe("done");
    // Closing waits for jobs still finishing (a span ends with its job), then each runtime flushes.
    await harness.close();
    harness = undefined;

    const spans = receiver.spans.filter(
      (span) => span.attributes["rein.run.id"] === runId || span.traceId === traceOf(receiver?.spans ?? [], runId),
    );
    const consumed = (queue: string) => spans.filter((span) => span.name === `process ${queue}`);
    for (const queue of ["plan", "step", "evaluate", "control"])
      expect(consumed(queue).length, `spans of ${queue} jobs`).toBeGreaterThan(0);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);

    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const ancestors = (span: ReceivedSpan): string[] => {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      return parent ? [parent.name, ...ancestors(parent)] : [];
    };
    for (const span of spans) if (span.parentSpanId) expect(byId.has(span.parentSpanId), `parent of ${span.name} exported`).toBe(true);

    const chats = spans.filter((span) => span.attributes[GENAI.operation] === "chat");
    expect(new Set(chats.map((span) => span.attributes["rein.role"]))).toEqual(new Set(["planner", "worker", "judge"]));
    const workerChat = chats.find((span) => span.attributes["rein.role"] === "worker");
    expect(workerChat?.attributes).toMatchObject({
      [GENAI.requestModel]: expect.any(String),
      [GENAI.inputTokens]: expect.any(Number),
      [GENAI.outputTokens]: expect.any(Number),
    });
    expect(workerChat && ancestors(workerChat)[0]).toBe("process step");
    const plannerChat = chats.find((span) => span.attributes["rein.role"] === "planner");
    expect(plannerChat && ancestors(plannerChat)[0]).toBe("process plan");
    const judgeChat = chats.find((span) => span.attributes["rein.role"] === "judge");
    expect(judgeChat && ancestors(judgeChat)[0]).toBe("process evaluate");

    const tool = spans.find((span) => span.attributes[GENAI.operation] === "execute_tool");
    expect(tool?.attributes).toMatchObject({ [GENAI.toolName]: expect.any(String), [GENAI.toolCallId]: expect.any(String) });
    expect(tool && ancestors(tool)).toContain("process step");
  }, 60_000);
});

/** The trace the run's model calls are in: the queue spans carry no run id of their own. */
function traceOf(spans: readonly ReceivedSpan[], runId: string): string | undefined {
  return spans.find((span) => span.attributes["rein.run.id"] === runId)?.traceId;
}
