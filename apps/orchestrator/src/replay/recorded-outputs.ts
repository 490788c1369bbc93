import type { Artifact } from "@rein/runtime";
import type { TypedTraceEvent } from "@rein/trace";

const callKey = (stepId: string | null, callId: string, index: number) => `${stepId ?? "-"}|${callId}|${index}`;

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

  constructor(events: readonly TypedTraceEvent[], artifacts: readonly Artifact[] = []) {
    const artifactText = new Map(artifacts.map((artifact) => [artifact.artifactId, artifact.content]));
    for (const event of events) {
      if (event.kind !== "tool.executed") continue;
      const p = event.payload;
      if (typeof p.output === "string" && event.outputHash) this.byHash.set(event.outputHash, p.output);
      if (p.status !== "ok") this.byCall.set(callKey(event.stepId, p.callId, p.index), { status: p.status, error: p.error ?? p.status });
    }
    for (const event of events) {
      if (event.kind !== "tool.result" || event.payload.status !== "ok") continue;
      const p = event.payload;
      const hash = p.rawOutputHash;
      let output = hash ? this.byHash.get(hash) : undefined;
      if (output === undefined && p.artifactId !== undefined) output = artifactText.get(p.artifactId);
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
