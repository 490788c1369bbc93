import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import {
  GENAI,
  modelCallAttributes,
  modelCallKey,
  modelResponseAttributes,
  modelSpanName,
  permissionAttributes,
  type TraceEvent,
  toolCallAttributes,
  toolCallKey,
  toolSpanName,
} from "@rein/core";

const time = (event: TraceEvent) => new Date(event.ts);

/**
 * Builds the spans of a finished run from its trace events: run → step
 * (delegated steps under their parent) → model call / tool call, with the
 * recorded times. Built after the fact from the trace, so telemetry can
 * never disagree with the audit trail and costs nothing when it is off.
 */
export function emitRunSpans(events: readonly TraceEvent[], tracer: Tracer): void {
  const first = events[0];
  const last = events.at(-1);
  if (!first || !last) return;
  const run = tracer.startSpan(
    "invoke_agent rein",
    { kind: SpanKind.INTERNAL, startTime: time(first), attributes: { [GENAI.operation]: "invoke_agent", [GENAI.agentName]: "rein", [GENAI.conversationId]: first.runId, "rein.run.id": first.runId } },
  );
  const steps = new Map<string, Span>();
  const openModels = new Map<string, { span: Span }[]>();
  const openTools = new Map<string, Span>();
  const parentOf = (stepId: string | null) => trace.setSpan(context.active(), (stepId ? steps.get(stepId) : undefined) ?? run);
  for (const event of events) {
    const p = event.payload;
    const modelKey = modelCallKey(event.runId, event.stepId, p);
    const toolKey = toolCallKey(event.runId, event.stepId, p);
    switch (event.kind) {
      case "step.dispatched": {
        if (!event.stepId) break;
        // A step re-dispatched after a suspension continues the span of its attempt.
        const open = steps.get(event.stepId);
        if (open) {
          open.addEvent("step.resumed", time(event));
          break;
        }
        const attributes: Attributes = { "rein.step.id": event.stepId, "rein.step.attempt": Number(p.attempt ?? 1) };
        if (event.parentStepId) attributes["rein.step.parent_id"] = event.parentStepId;
        const parent = trace.setSpan(context.active(), (event.parentStepId ? steps.get(event.parentStepId) : undefined) ?? run);
        steps.set(event.stepId, tracer.startSpan(`step ${String(p.title ?? event.stepId)}`, { startTime: time(event), attributes }, parent));
        break;
      }
      case "verdict.ready": {
        const span = event.stepId ? steps.get(event.stepId) : undefined;
        if (!span || !event.stepId) break;
        span.setAttribute("rein.verdict", String(p.decision));
        span.end(time(event));
        steps.delete(event.stepId);
        break;
      }
      case "model.called": {
        const span = tracer.startSpan(modelSpanName(p), { kind: SpanKind.CLIENT, startTime: time(event), attributes: modelCallAttributes(p) }, parentOf(event.stepId));
        openModels.set(modelKey, [...(openModels.get(modelKey) ?? []), { span }]);
        break;
      }
      case "model.responded":
      case "model.failed": {
        const open = openModels.get(modelKey)?.shift();
        if (!open) break;
        if (event.kind === "model.failed") open.span.setStatus({ code: SpanStatusCode.ERROR, message: String(p.error) });
        else open.span.setAttributes(modelResponseAttributes(p, event.usage));
        open.span.end(time(event));
        break;
      }
      case "tool.called":
        openTools.set(
          toolKey,
          tracer.startSpan(toolSpanName(p), { startTime: time(event), attributes: toolCallAttributes(p) }, parentOf(event.stepId)),
        );
        break;
      case "permission.decided":
        openTools.get(toolKey)?.setAttributes(permissionAttributes(p));
        break;
      case "tool.result": {
        const span = openTools.get(toolKey);
        if (!span) break;
        span.setAttribute("rein.tool.status", String(p.status));
        if (p.status !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: String(p.message ?? p.status) });
        span.end(time(event));
        openTools.delete(toolKey);
        break;
      }
      default:
        if (/^run\.(done|failed|cancelled|escalated)$/.test(event.kind)) {
          run.setAttribute("rein.run.status", event.kind.slice(4));
          if (event.kind !== "run.done") run.setStatus({ code: SpanStatusCode.ERROR, message: String(p.reason ?? event.kind) });
        }
    }
  }
  const end = time(last);
  for (const span of openTools.values()) span.end(end);
  for (const list of openModels.values()) for (const open of list) open.span.end(end);
  for (const span of steps.values()) span.end(end);
  run.end(end);
}
