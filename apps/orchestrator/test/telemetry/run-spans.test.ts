import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { GENAI } from "@rein/runtime";
import { traceEventOf } from "@rein/runtime/testing";
import { emitRunSpans } from "../../src/telemetry/run-spans.ts";
import { fixtureEvents } from "../trace/fixture-events.ts";

function spansOf(events = fixtureEvents()): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  emitRunSpans(events, provider.getTracer("rein-test"));
  return exporter.getFinishedSpans();
}

const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("OpenTelemetry spans from a trace", () => {
  it("nests run → step → delegated step, with tool calls under their step", () => {
    const spans = spansOf();
    const byName = (name: string) => spans.find((span) => span.name === name) as ReadableSpan;
    const run = byName("invoke_agent rein");
    const investigate = byName("step Investigate");
    const deploy = byName("step Deploy fix");
    expect(parentId(run)).toBeUndefined();
    expect(parentId(investigate)).toBe(run.spanContext().spanId);
    expect(parentId(deploy)).toBe(investigate.spanContext().spanId);
    expect(parentId(byName("execute_tool read_file"))).toBe(investigate.spanContext().spanId);
    expect(parentId(byName("execute_tool deploy"))).toBe(deploy.spanContext().spanId);
    expect(run.attributes[GENAI.operation]).toBe("invoke_agent");
    expect(run.attributes["rein.run.status"]).toBe("done");
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  it("carries the GenAI attribute names on tool calls, and marks refused and denied calls as errors", () => {
    const spans = spansOf();
    const read = spans.find((span) => span.name === "execute_tool read_file") as ReadableSpan;
    expect(read.attributes).toMatchObject({
      [GENAI.operation]: "execute_tool",
      [GENAI.toolName]: "read_file",
      [GENAI.toolCallId]: "c0",
      "rein.permission.rule": "default:read",
    });
    expect(read.status.code).toBe(0);
    const denied = spans.find((span) => span.name === "execute_tool run_command") as ReadableSpan;
    expect(denied.status).toMatchObject({ code: 2, message: "denied by goal:no-rm" });
  });

  it("makes a chat span per model call with provider, model and token usage", () => {
    const events = fixtureEvents();
    const responded = events.findIndex((event) => event.kind === "model.responded");
    const called = traceEventOf(
      "model.called",
      {
        role: "worker",
        provider: "anthropic",
        kind: "anthropic",
        model: "m1",
        tools: [],
        messages: 1,
        structured: null,
        prompt: { system: `sha256:${"5".repeat(64)}`, messages: [], tools: null, output: null },
      },
      { ...events[responded], seq: 0, usage: undefined },
    );
    events.splice(responded, 0, called);
    const chat = spansOf(events).find((span) => span.name === "chat m1") as ReadableSpan;
    expect(chat.attributes).toMatchObject({
      [GENAI.operation]: "chat",
      [GENAI.provider]: "anthropic",
      [GENAI.system]: "anthropic",
      [GENAI.requestModel]: "m1",
      [GENAI.inputTokens]: 100,
      [GENAI.outputTokens]: 20,
      [GENAI.finishReasons]: ["tool_use"],
    });
    expect(chat.kind).toBe(2);
  });
});
