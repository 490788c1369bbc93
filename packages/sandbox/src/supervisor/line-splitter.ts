import type { Readable } from "node:stream";

/**
 * Calls `onLine` for each newline-terminated line of `stream` (UTF-8, without
 * the newline), and `onOverflow` once when a line grows past `maxLineBytes`:
 * a peer that never ends its line cannot make this process buffer without bound.
 */
export function splitLines(stream: Readable, maxLineBytes: number, onLine: (line: string) => void, onOverflow: () => void): void {
  let buffered: Buffer[] = [];
  let bufferedBytes = 0;
  let overflowed = false;
  stream.on("data", (chunk: Buffer) => {
    if (overflowed) return;
    let start = 0;
    for (let index = chunk.indexOf(10); index >= 0; index = chunk.indexOf(10, start)) {
      buffered.push(chunk.subarray(start, index));
      const line = Buffer.concat(buffered).toString("utf8");
      buffered = [];
      bufferedBytes = 0;
      start = index + 1;
      onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
      if (overflowed) return;
    }
    const rest = chunk.subarray(start);
    bufferedBytes += rest.length;
    if (bufferedBytes > maxLineBytes) {
      overflowed = true;
      buffered = [];
      onOverflow();
      return;
    }
    if (rest.length > 0) buffered.push(rest);
  });
}
