import type * as OtelApi from "@opentelemetry/api";
import type { Span, Tracer } from "@opentelemetry/api";
import type { TraceEventInput } from "../trace/trace-catalogue.ts";
import {
  modelCallAttributes,
  modelCallKey,
  modelResponseAttributes,
  modelSpanName,
  permissionAttributes,
  toolCallAttributes,
  toolCallKey,
  toolSpanName,
} from "./genai-attributes.ts";

/**
 * Turns this process's trace events into spans as they are written: a model
 * call or tool call is a span from its `*.called` to its result, child of
 * whatever span is active then: the job's consumer span, whose context came
 * inside the job from the process that enqueued it (see startOtel).
 */
export class LiveSpans {
  readonly #models = new Map<string, Span[]>();
  readonly #tools = new Map<string, Span>();

  constructor(
    private readonly api: typeof OtelApi,
    private readonly tracer: Tracer,
  ) {}

  observe(event: TraceEventInput): void {
    const p = event.payload;
    const at = event.ts ? new Date(event.ts) : new Date();
    switch (event.kind) {
      case "model.called": {
        const key = modelCallKey(event.runId, event.stepId, p);
        const span = this.tracer.startSpan(modelSpanName(p), { kind: this.api.SpanKind.CLIENT, startTime: at, attributes: { ...modelCallAttributes(p), "rein.run.id": event.runId } });
        this.#models.set(key, [...(this.#models.get(key) ?? []), span]);
        return;
      }
      case "model.responded":
      case "model.failed": {
        const key = modelCallKey(event.runId, event.stepId, p);
        const span = this.#models.get(key)?.shift();
        if (!span) return;
        if (this.#models.get(key)?.length === 0) this.#models.delete(key);
        if (event.kind === "model.failed") span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: String(event.payload.error) });
        else span.setAttributes(modelResponseAttributes(p, event.usage));
        span.end(at);
        return;
      }
      case "tool.called":
        this.#tools.set(toolCallKey(event.runId, event.stepId, p), this.tracer.startSpan(toolSpanName(p), { startTime: at, attributes: { ...toolCallAttributes(p), "rein.run.id": event.runId } }));
        return;
      case "permission.decided":
        this.#tools.get(toolCallKey(event.runId, event.stepId, p))?.setAttributes(permissionAttributes(p));
        return;
      case "tool.result": {
        const key = toolCallKey(event.runId, event.stepId, p);
        const span = this.#tools.get(key);
        if (!span) return;
        this.#tools.delete(key);
        const result = event.payload;
        span.setAttribute("rein.tool.status", String(result.status));
        if (result.status !== "ok") span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: String(result.message ?? result.status) });
        span.end(at);
        return;
      }
      default:
    }
  }
}
