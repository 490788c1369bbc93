import { LuaScript } from "../redis/lua-script.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import { type DecodedEntry, decodeEntry, encodeChunk } from "./trace-entries.ts";

type DecodedChunk = Extract<DecodedEntry, { kind: "chunk" }>;
type WrittenEvent = Extract<DecodedEntry, { kind: "event" }>;

/** `retention.traceCompaction`: when a retiring run's trace is packed, and into what size of chunk. */
export interface TraceCompactionOptions {
  /** Traces with fewer written events than this are left as they are: too small to be worth it. */
  minEvents: number;
  /** Stored JSON per chunk before it is packed; deflate's window is 32 KB, so much larger gains little. */
  chunkBytes: number;
}

export interface TraceCompaction {
  /** Written events packed into chunks. */
  events: number;
  entriesBefore: number;
  entriesAfter: number;
}

// Rebuilds the stream only if nothing was appended since it was read (its last
// entry is still ARGV[1]), keeping its TTL. Each new entry's id is the id of the
// last entry it replaces, so ids stay increasing and a later XADD '*' lands after
// them; a kept chunk is re-added as it was.
// ARGV: expected last id, then id, seqs, events for each entry.
const replaceStream = new LuaScript(`
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 or last[1][1] ~= ARGV[1] then return 0 end
local pttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 3 do
  redis.call('XADD', KEYS[1], ARGV[i], 'seqs', ARGV[i + 1], 'events', ARGV[i + 2])
end
if pttl > 0 then redis.call('PEXPIRE', KEYS[1], pttl) end
return 1
`);

const ATTEMPTS = 3;

/**
 * Packs a finished run's trace: runs of written events become chunks,
 * deflated, so what a long run leaves is a fraction of what it wrote
 * (a 200-turn run's trace, ~950 KB as written, packs to ~130 KB).
 * TraceLog reads both forms as the same events, and an export of the trace
 * is the same bytes before and after. Done once, when the run retires:
 * packing on the turn's path would cost the turn the deflate, and a
 * running trace is read by followers entry by entry. An event appended
 * while it packs (a cut-off step's last record) makes it read again,
 * so nothing is lost; after a few tries it leaves the trace as it is.
 * @returns what it packed, or null when it left the trace as it was
 */
export async function compactTrace(
  redis: RedisClient,
  stream: string,
  runId: string,
  options: TraceCompactionOptions,
): Promise<TraceCompaction | null> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if ((await redis.xlen(stream)) < options.minEvents) break;
    const raw = await redis.xrangeBuffer(stream, "-", "+");
    const entries = raw.map((entry) => decodeEntry(runId, entry));
    const written = entries.filter((entry) => entry.kind === "event").length;
    const lastId = entries.at(-1)?.id;
    if (written < options.minEvents || lastId === undefined) break;

    // Runs of written events, cut at kept chunks and at chunkBytes; each run becomes one chunk.
    const groups: ({ kept: DecodedChunk } | { events: WrittenEvent[] })[] = [];
    let pending: WrittenEvent[] = [];
    let pendingBytes = 0;
    const cut = () => {
      if (pending.length > 0) groups.push({ events: pending });
      pending = [];
      pendingBytes = 0;
    };
    for (const entry of entries) {
      if (entry.kind === "chunk") {
        cut();
        groups.push({ kept: entry });
        continue;
      }
      pending.push(entry);
      pendingBytes += entry.json.length;
      if (pendingBytes >= options.chunkBytes) cut();
    }
    cut();
    const chunks = await Promise.all(
      groups.map(async (group) => {
        if ("kept" in group) return [group.kept.id, `${group.kept.firstSeq}-${group.kept.lastSeq}`, group.kept.packed] as const;
        const chunk = await encodeChunk(group.events);
        return [group.events.at(-1)?.id ?? lastId, chunk.seqs, chunk.packed] as const;
      }),
    );
    const args: (string | Buffer)[] = [lastId, ...chunks.flat()];
    if (Number(await replaceStream.run(redis, [stream], args)) === 1) {
      return { events: written, entriesBefore: entries.length, entriesAfter: (args.length - 1) / 3 };
    }
  }
  return null;
}
