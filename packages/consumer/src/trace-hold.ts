import type { TraceEventInput, TraceWriter } from "@rein/trace";
import type { Redactor } from "@rein/guard";
import type { TraceLog } from "@rein/runtime";

/**
 * What a trusted role's job records after its work is done and before its
 * result is applied: written with the result, in the compare-and-set that
 * applies it (RunEvents.apply), rather than each in a script call of its own.
 */
const HELD_KINDS: ReadonlySet<string> = new Set(["model.responded", "fingerprints.recorded", "claims.checked", "lesson.used"]);

/**
 * One plan or evaluate job's trace writer for its run. Events of the kinds
 * above are held, encoded (so stamped and observed) when they happen; any
 * other event of the run is written at once, with everything held before it,
 * so the stream keeps the order events happened in and a call in flight
 * (`model.called`, a check's command) shows while it runs; a call's prompt
 * blobs go out with it, in the same round trip. `carry` hands the
 * held events to the result's write; `around` writes them where no result
 * carried them (the job failed).
 */
export class TraceHold implements TraceWriter {
  #held: string[] = [];
  #blobs = new Map<string, string>();

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
    this.#held.push(this.trace.encode(input));
    if (!HELD_KINDS.has(input.kind)) await this.flush();
  }

  /** The run's blobs (a call's prompt copy) go with the next write of its events, sent ahead of them on the one connection. */
  async putBlobs(runId: string, blobs: ReadonlyMap<string, string>): Promise<void> {
    if (runId !== this.runId) return this.trace.putBlobs(runId, blobs);
    for (const [id, content] of blobs) this.#blobs.set(id, content);
  }

  /**
   * Hands the held events (encoded, in order) to `write`, the result's write; if it throws, they are held
   * again, for `flush`: a try whose result did not land still shows what it spent.
   */
  async carry(write: (held: readonly string[]) => Promise<void>): Promise<void> {
    const blobs = this.#putHeldBlobs();
    const held = this.#take();
    try {
      await write(held);
    } catch (error) {
      this.#held = [...held, ...this.#held];
      await blobs.catch(() => {});
      throw error;
    }
    await blobs;
  }

  /** Runs a job's work; if it throws, what is held and no result carried is written (best effort) before the error goes on. */
  async around<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await this.flush().catch(() => {});
      throw error;
    }
  }

  /** Writes what is held, where no result carries it. */
  async flush(): Promise<void> {
    const blobs = this.#putHeldBlobs();
    const held = this.#take();
    await Promise.all([blobs, held.length > 0 ? this.trace.appendEncoded(this.runId, held) : undefined]);
  }

  /**
   * Sends the held blobs now, before anything else of the write they go
   * with: on the one connection Redis stores them before the events naming
   * them, and the events wait for no round trip of their own.
   */
  #putHeldBlobs(): Promise<void> {
    const blobs = this.#blobs;
    this.#blobs = new Map();
    return this.trace.putBlobs(this.runId, blobs).catch((error: unknown) => {
      // Held again, for the next write: the events that name them may yet be written.
      for (const [id, content] of blobs) if (!this.#blobs.has(id)) this.#blobs.set(id, content);
      throw error;
    });
  }

  #take(): string[] {
    const held = this.#held;
    this.#held = [];
    return held;
  }
}
