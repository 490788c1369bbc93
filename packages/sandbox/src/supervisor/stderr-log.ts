import type { Readable } from "node:stream";
import type { Logger } from "@rein/guard";

export interface StderrLog {
  /** The last lines written, for the message about a process that died. */
  tail(): string;
}

/**
 * Sends a child's stderr to the log line by line, up to `maxBytes` in all;
 * past that it is counted, not kept, and one warning says so. The last few
 * hundred bytes are always kept for `tail`.
 */
export function logStderr(stream: Readable, logger: Logger, maxBytes: number, tailBytes = 512): StderrLog {
  let logged = 0;
  let dropped = 0;
  let last = "";
  stream.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    last = (last + text).slice(-tailBytes);
    if (logged >= maxBytes) {
      if (dropped === 0) logger.warn({ maxBytes }, "child stderr exceeded its log budget; the rest is dropped");
      dropped += chunk.length;
      return;
    }
    const room = maxBytes - logged;
    const kept = chunk.length <= room ? text : chunk.subarray(0, room).toString("utf8");
    logged += Math.min(chunk.length, room);
    for (const line of kept.split("\n")) if (line.trim() !== "") logger.debug({ stderr: line }, "child stderr");
    if (chunk.length > room) dropped += chunk.length - room;
  });
  return { tail: () => last.trim() };
}
