import type { TraceEventInput } from "./trace-catalogue.ts";

/** Where a producer writes a run's trace events and the prompt blobs its model calls reference; the runtime's trace log is one. */
export interface TraceWriter {
  append(input: TraceEventInput): Promise<unknown>;
  putBlobs(runId: string, blobs: ReadonlyMap<string, string>): Promise<void>;
}
