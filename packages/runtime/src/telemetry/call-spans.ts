import type * as OtelApi from "@opentelemetry/api";
import type { Context, Span, Tracer } from "@opentelemetry/api";
import type { TraceEventInput } from "@rein/trace";
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
 * The spans of model calls and tool calls, from trace events: a call is a
 * span from its `*.called` to its result. It serves both ways Rein makes
 * spans: live, as a process writes its events (each span a child of the job's
 * consumer span, active then; see startOtel), and after the fact, for a
 * recorded run (`rein trace --otel`, which names each call's step span as
 * its parent).
 */
export class CallSpans {
  readonly #models = new Map<string, Span[]>();
  readonly #tools = new Map<string, Span>();

  constructor(
    private readonly api: Pick<typeof OtelApi, "SpanKind" | "SpanStatusCode">,
    private readonly tracer: Tracer,
  ) {}

  /** Starts, annotates or ends a call's span; other events are not calls and are passed over. `parent` defaults to the active context. */
  observe(event: TraceEventInput, parent?: Context): void {
    const p = event.payload;
    const at = event.ts ? new Date(event.ts) : new Date();
    switch (event.kind) {
      case "model.called": {
        const key = modelCallKey(event.runId, event.stepId, p);
        const span = this.tracer.startSpan(
          modelSpanName(p),
          { kind: this.api.SpanKind.CLIENT, startTime: at, attributes: { ...modelCallAttributes(p), "rein.run.id": event.runId } },
          parent,
        );
        this.#models.set(key, [...(this.#models.get(key) ?? []), span]);
        return;
      }
      case "model.responded":
      case "model.failed": {
        const key = modelCallKey(event.runId, event.stepId, p);
        const span = this.#models.get(key)?.shift();
        if (!span) return;
        if (this.#models.get(key)?.length === 0) this.#models.delete(key);
        if (event.kind === "model.failed") span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: event.payload.error });
        else span.setAttributes(modelResponseAttributes(p, event.usage));
        span.end(at);
        return;
      }
      case "tool.called":
        this.#tools.set(
          toolCallKey(event.runId, event.stepId, p),
          this.tracer.startSpan(
            toolSpanName(p),
            { startTime: at, attributes: { ...toolCallAttributes(p), "rein.run.id": event.runId } },
            parent,
          ),
        );
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
        span.setAttribute("rein.tool.status", result.status);
        if (result.status !== "ok") span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: result.message ?? result.status });
        span.end(at);
        return;
      }
      default:
    }
  }

  /** Ends the calls still open at `at`: a recorded run that stopped mid-call. */
  endOpen(at: Date): void {
    for (const span of this.#tools.values()) span.end(at);
    for (const spans of this.#models.values()) for (const span of spans) span.end(at);
    this.#tools.clear();
    this.#models.clear();
  }
}
