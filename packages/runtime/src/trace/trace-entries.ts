import { promisify } from "node:util";
import { deflateRaw, inflateRawSync } from "node:zlib";
import { errorMessage, ReinError } from "@rein/contracts";

/**
 * A trace stream holds two kinds of entry. A written event is `seq`,
 * `event` (its stored JSON, TraceLog.encode). A compacted chunk, written
 * when a finished run retires (compactTrace), is `seqs` ("first-last") and
 * `events`: deflate-raw of the JSON array `[[seq, stored event], ...]` of
 * the events it replaced, in order. Both read back as the same events.
 */
export interface StoredEvent {
  seq: number;
  /** The event as stored: without what TraceLog.encode leaves out. */
  body: unknown;
}

/** A stream entry as XRANGE/XREAD return it with Buffer replies: its id and its field/value list. */
export type RawTraceEntry = [id: Buffer, fields: Buffer[]];

export type DecodedEntry =
  | { kind: "event"; id: string; seq: number; json: string }
  | { kind: "chunk"; id: string; firstSeq: number; lastSeq: number; packed: Buffer };

export function decodeEntry(runId: string, [rawId, fields]: RawTraceEntry): DecodedEntry {
  const id = rawId.toString();
  const named = new Map<string, Buffer>();
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const value = fields[index + 1];
    if (value) named.set(String(fields[index]), value);
  }
  const packed = named.get("events");
  const seqs = named.get("seqs");
  if (packed && seqs) {
    const [first = Number.NaN, last = Number.NaN] = String(seqs).split("-").map(Number);
    if (!Number.isInteger(first) || !Number.isInteger(last))
      throw malformed(runId, id, `its seqs are ${JSON.stringify(String(seqs))}; expected "first-last"`);
    return { kind: "chunk", id, firstSeq: first, lastSeq: last, packed };
  }
  const event = named.get("event");
  const seq = Number(String(named.get("seq")));
  if (!event || !Number.isInteger(seq)) throw malformed(runId, id, "expected the fields seq and event, or seqs and events");
  return { kind: "event", id, seq, json: event.toString("utf8") };
}

/** The events an entry holds, those after `fromSeq` only: a chunk wholly before it is not inflated. */
export function storedEventsOf(runId: string, entry: DecodedEntry, fromSeq = 0): StoredEvent[] {
  if (entry.kind === "event")
    return entry.seq > fromSeq ? [{ seq: entry.seq, body: parsed(runId, entry.id, entry.json, "its event is not JSON") }] : [];
  if (entry.lastSeq <= fromSeq) return [];
  let text: string;
  try {
    text = inflateRawSync(entry.packed).toString("utf8");
  } catch (error) {
    throw malformed(runId, entry.id, `its events do not inflate (${errorMessage(error)})`);
  }
  const pairs = parsed(runId, entry.id, text, "its events do not inflate to JSON");
  if (!Array.isArray(pairs)) throw malformed(runId, entry.id, "its events are not an array of [seq, event]");
  const events: StoredEvent[] = [];
  for (const pair of pairs) {
    if (!Array.isArray(pair) || !Number.isInteger(pair[0])) throw malformed(runId, entry.id, "an element is not [seq, event]");
    if (pair[0] > fromSeq) events.push({ seq: pair[0], body: pair[1] });
  }
  return events;
}

const deflateRawAsync = promisify(deflateRaw);

/**
 * One chunk's fields: the events given (seq and stored JSON), packed. On
 * zlib's thread pool: a controller packing a long run's trace keeps
 * applying other runs' events meanwhile.
 */
export async function encodeChunk(events: ReadonlyArray<{ seq: number; json: string }>): Promise<{ seqs: string; packed: Buffer }> {
  const first = events[0];
  const last = events.at(-1);
  if (!first || !last) throw new ReinError("contract_invalid", "a trace chunk needs at least one event");
  // The stored JSON goes in as it is (no parse and re-serialise): the chunk's text is the events' text.
  const text = `[${events.map((event) => `[${event.seq},${event.json}]`).join(",")}]`;
  return { seqs: `${first.seq}-${last.seq}`, packed: await deflateRawAsync(text) };
}

function parsed(runId: string, id: string, json: string, what: string): unknown {
  try {
    return JSON.parse(json);
  } catch (error) {
    throw malformed(runId, id, `${what} (${errorMessage(error)})`);
  }
}

function malformed(runId: string, id: string, what: string): ReinError {
  return new ReinError("contract_invalid", `trace entry ${id} of run ${runId} is malformed: ${what}`);
}
