import type { Artifact, TraceEvent } from "@rein/core";

const callKey = (stepId: string | null, callId: unknown, index: unknown) => `${stepId ?? "-"}|${String(callId)}|${String(index)}`;

export interface RecordedOutput {
  status: string;
  /** The rendered output, when the trace or an artifact holds it. */
  output?: string;
  /** The error message of a failed call. */
  error?: string;
}

/**
 * What each tool call of a recording returned, by (step, call id, index),
 * and every output by its hash. An output is found in its `tool.executed`
 * event or, when it was too large to inline, in the truncation artifact;
 * a cache hit or idempotent replay shares the hash of the call that ran.
 */
export class RecordedOutputs {
  private readonly byCall = new Map<string, RecordedOutput>();
  private readonly byHash = new Map<string, string>();

  constructor(events: readonly TraceEvent[], artifacts: readonly Artifact[] = []) {
    const artifactText = new Map(artifacts.map((artifact) => [artifact.artifactId, artifact.content]));
    for (const event of events) {
      const p = event.payload;
      if (event.kind === "tool.executed" && typeof p.output === "string" && event.outputHash) this.byHash.set(event.outputHash, p.output);
      if (event.kind === "tool.executed" && p.status !== "ok") {
        this.byCall.set(callKey(event.stepId, p.callId, p.index), { status: String(p.status), error: String(p.error ?? p.status) });
      }
    }
    for (const event of events) {
      const p = event.payload;
      if (event.kind !== "tool.result" || p.status !== "ok") continue;
      const hash = typeof p.rawOutputHash === "string" ? p.rawOutputHash : undefined;
      let output = hash ? this.byHash.get(hash) : undefined;
      if (output === undefined && typeof p.artifactId === "string") output = artifactText.get(p.artifactId);
      if (hash && output !== undefined) this.byHash.set(hash, output);
      this.byCall.set(callKey(event.stepId, p.callId, p.index), { status: "ok", ...(output === undefined ? {} : { output }) });
    }
  }

  forCall(stepId: string, callId: string, index: number): RecordedOutput | undefined {
    return this.byCall.get(callKey(stepId, callId, index));
  }

  forHash(hash: string | undefined): string | undefined {
    return hash ? this.byHash.get(hash) : undefined;
  }
}
