import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import { CallSpans, GENAI } from "@rein/runtime";
import type { TypedTraceEvent } from "@rein/trace";

const time = (event: TypedTraceEvent) => new Date(event.ts);

/**
 * Builds the spans of a finished run from its trace events: run → step
 * (delegated steps under their parent) → model call / tool call, with the
 * recorded times. Built after the fact from the trace, so telemetry can
 * never disagree with the audit trail and costs nothing when it is off.
 */
export function emitRunSpans(events: readonly TypedTraceEvent[], tracer: Tracer): void {
  const first = events[0];
  const last = events.at(-1);
  if (!first || !last) return;
  const run = tracer.startSpan("invoke_agent rein", {
    kind: SpanKind.INTERNAL,
    startTime: time(first),
    attributes: {
      [GENAI.operation]: "invoke_agent",
      [GENAI.agentName]: "rein",
      [GENAI.conversationId]: first.runId,
      "rein.run.id": first.runId,
    },
  });
  const steps = new Map<string, Span>();
  const calls = new CallSpans({ SpanKind, SpanStatusCode }, tracer);
  const parentOf = (stepId: string | null) => trace.setSpan(context.active(), (stepId ? steps.get(stepId) : undefined) ?? run);
  for (const event of events) {
    switch (event.kind) {
      case "step.dispatched": {
        if (!event.stepId) break;
        const p = event.payload;
        // A step re-dispatched after a suspension continues the span of its attempt.
        const open = steps.get(event.stepId);
        if (open) {
          open.addEvent("step.resumed", time(event));
          break;
        }
        const attributes: Attributes = { "rein.step.id": event.stepId, "rein.step.attempt": p.attempt };
        if (event.parentStepId) attributes["rein.step.parent_id"] = event.parentStepId;
        const parent = trace.setSpan(context.active(), (event.parentStepId ? steps.get(event.parentStepId) : undefined) ?? run);
        steps.set(event.stepId, tracer.startSpan(`step ${p.title}`, { startTime: time(event), attributes }, parent));
        break;
      }
      case "verdict.ready": {
        const span = event.stepId ? steps.get(event.stepId) : undefined;
        if (!span || !event.stepId) break;
        span.setAttribute("rein.verdict", event.payload.decision);
        span.end(time(event));
        steps.delete(event.stepId);
        break;
      }
      case "run.done":
        run.setAttribute("rein.run.status", "done");
        break;
      case "run.failed":
      case "run.cancelled":
        run.setAttribute("rein.run.status", event.kind.slice(4));
        run.setStatus({ code: SpanStatusCode.ERROR, message: event.payload.reason });
        break;
      case "run.escalated":
        run.setAttribute("rein.run.status", "escalated");
        run.setStatus({ code: SpanStatusCode.ERROR, message: event.kind });
        break;
      default:
        calls.observe(event, parentOf(event.stepId));
    }
  }
  const end = time(last);
  calls.endOpen(end);
  for (const span of steps.values()) span.end(end);
  run.end(end);
}
