import type { Redactor } from "@rein/guard";
import { type CallTraceKind, type TraceEventInput, type TracePayloadInput, traceEventInput } from "@rein/trace";

/** The part of TraceLog the executor writes through; tests pass an in-memory sink. */
export interface TraceSink {
  append(input: TraceEventInput): Promise<unknown>;
  /**
   * Whether the sink redacts every event with `redactor` before anything
   * stores or sees it (a TraceLog made with `redact: redactor.redactJson`):
   * the executor then leaves its call payloads to the sink rather than
   * walking each of them first. Absent means no.
   */
  redactsWith?(redactor: Redactor): boolean;
}

export interface CallTraceBase {
  runId: string;
  stepId: string;
  parentStepId: string | null;
  callId: string;
  tool: string;
  index: number;
  argsHash: `sha256:${string}`;
}

/** What a stage says about a call; CallTrace adds the ids every call event carries. */
export type CallEventPayload<Kind extends CallTraceKind> = Omit<TracePayloadInput<Kind>, "callId" | "tool" | "index">;

/**
 * Writes one call's stage events with the ids and hashes every one of them
 * carries, so the audit trail of a call can be read without joining.
 */
export class CallTrace {
  constructor(
    private readonly sink: TraceSink,
    private readonly base: CallTraceBase,
    private readonly redact: <Payload extends object>(payload: Payload) => Payload = (payload) => payload,
  ) {}

  async emit<Kind extends CallTraceKind>(
    kind: Kind,
    payload: CallEventPayload<Kind>,
    extra: { outputHash?: string; durationMs?: number } = {},
  ): Promise<void> {
    const { runId, stepId, parentStepId, callId, tool, index, argsHash } = this.base;
    await this.sink.append(
      traceEventInput({
        runId,
        stepId,
        parentStepId,
        kind,
        inputHash: argsHash,
        ...extra,
        payload: this.redact({ callId, tool, index, ...payload }),
      }),
    );
  }
}
