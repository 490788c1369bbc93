export interface SizeLimits {
  maxBytes: number;
  maxLines: number;
}

export interface TextSize {
  lines: number;
  bytes: number;
}

export type Bounded = { truncated: false; text: string } | { truncated: true; text: string; shown: TextSize; total: TextSize };

/**
 * Cuts text to at most `maxLines` lines and `maxBytes` UTF-8 bytes, never
 * inside a character. Scans with indexOf so a 10 MB result costs no array
 * of lines.
 */
export function boundText(text: string, limits: SizeLimits): Bounded {
  const total = { lines: countLines(text), bytes: Buffer.byteLength(text) };
  if (total.lines <= limits.maxLines && total.bytes <= limits.maxBytes) return { truncated: false, text };
  let shown = text.slice(0, endOfLine(text, limits.maxLines));
  if (Buffer.byteLength(shown) > limits.maxBytes) {
    const bytes = Buffer.from(shown.slice(0, limits.maxBytes)).subarray(0, limits.maxBytes);
    shown = new TextDecoder().decode(bytes).replace(/\uFFFD+$/, "");
  }
  return { truncated: true, text: shown, shown: { lines: countLines(shown), bytes: Buffer.byteLength(shown) }, total };
}

/** Lines as a reader counts them: a trailing newline does not start another. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count += 1;
  return text.endsWith("\n") ? count : count + 1;
}

function endOfLine(text: string, lines: number): number {
  let at = -1;
  for (let line = 0; line < lines; line += 1) {
    at = text.indexOf("\n", at + 1);
    if (at === -1) return text.length;
  }
  return at;
}
