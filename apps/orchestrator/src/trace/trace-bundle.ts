import type { RunState } from "@rein/contracts/run";
import type { Artifact, ReinRuntime } from "@rein/runtime";
import type { TypedTraceEvent } from "@rein/trace";
import { artifactIdsOf } from "./run-artifacts.ts";

/** Everything a run's history consists of: the events, the blobs and artifacts they reference, and the final state. */
export interface TraceBundle {
  runId: string;
  state: RunState | null;
  events: TypedTraceEvent[];
  /** Prompt copies, content-addressed (see PromptCopy). */
  blobs: Record<string, string>;
  artifacts: Artifact[];
}

/** Reads a run's bundle from Redis; an artifact that has expired is simply absent. */
export async function loadBundle(runtime: ReinRuntime, runId: string): Promise<TraceBundle> {
  const [state, events, blobs] = await Promise.all([runtime.runs.get(runId), runtime.trace.read(runId), runtime.trace.readBlobs(runId)]);
  const artifacts: Artifact[] = [];
  for (const artifactId of artifactIdsOf(events)) {
    const artifact = await runtime.artifacts.get(artifactId);
    if (artifact) artifacts.push(artifact);
  }
  return { runId, state, events, blobs, artifacts };
}
