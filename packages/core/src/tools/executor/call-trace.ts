import type { TraceEventInput } from "../../contracts/index.ts";

/** The part of TraceLog the executor writes through; tests pass an in-memory sink. */
export interface TraceSink {
  append(input: TraceEventInput): Promise<unknown>;
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

/**
 * Writes one call's stage events with the ids and hashes every one of them
 * carries, so the audit trail of a call can be read without joining.
 */
export class CallTrace {
  constructor(
    private readonly sink: TraceSink,
    private readonly base: CallTraceBase,
    private readonly redact: (payload: Record<string, unknown>) => Record<string, unknown> = (payload) => payload,
  ) {}

  async emit(
    kind: string,
    payload: Record<string, unknown>,
    extra: { outputHash?: string; durationMs?: number } = {},
  ): Promise<void> {
    const { runId, stepId, parentStepId, callId, tool, index, argsHash } = this.base;
    await this.sink.append({
      runId,
      stepId,
      parentStepId,
      kind,
      inputHash: argsHash,
      ...extra,
      payload: this.redact({ callId, tool, index, ...payload }),
    });
  }
}
