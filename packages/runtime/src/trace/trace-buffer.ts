import type { TraceEventInput } from "@rein/trace";
import type { TraceBatch } from "../stores/turn-write.ts";
import type { Redactor } from "@rein/guard";
import type { TraceLog } from "./trace-log.ts";

/**
 * Collects one run's trace events and prompt blobs for the step's one fenced
 * write per turn (CheckpointStore.saveTurn takes them). A worker turn emits a
 * dozen events; awaiting each would make the turn's cost its Redis round
 * trips. There is no unfenced flush: a worker that lost its step must not
 * land its turn late. A turn that dies before its write is re-run from the
 * last checkpoint and emits its events again, so nothing of a completed turn
 * is lost.
 */
export class TraceBuffer {
  private events: string[] = [];
  private blobs = new Map<string, string>();

  constructor(
    private readonly trace: TraceLog,
    readonly runId: string,
  ) {}

  /** Every event goes through the trace log's encode, and so its redaction. */
  redactsWith(redactor: Redactor): boolean {
    return this.trace.redactsWith(redactor);
  }

  async append(input: TraceEventInput): Promise<void> {
    if (input.runId !== this.runId) {
      await this.trace.append(input);
      return;
    }
    this.events.push(this.trace.encode(input));
  }

  async putBlobs(runId: string, blobs: ReadonlyMap<string, string>): Promise<void> {
    if (runId !== this.runId) return this.trace.putBlobs(runId, blobs);
    for (const [id, content] of blobs) this.blobs.set(id, content);
  }

  /** Hands over what is buffered, for a write that carries more than the trace (see writeTurn). */
  take(): TraceBatch {
    const batch = this.trace.batch(this.runId, this.events, this.blobs);
    this.events = [];
    this.blobs = new Map();
    return batch;
  }
}
