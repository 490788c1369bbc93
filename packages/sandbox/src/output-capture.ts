/** Keeps the first `max` bytes of a stream and counts the rest. */
export function captureOutput(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    push(chunk: Buffer): void {
      total += chunk.length;
      const room = max - kept;
      if (room <= 0) return;
      const piece = chunk.subarray(0, room);
      chunks.push(piece);
      kept += piece.length;
    },
    text: (): string => new TextDecoder().decode(Buffer.concat(chunks)).replace(/\uFFFD+$/, ""),
    truncated: (): boolean => total > kept,
    totalBytes: (): number => total,
  };
}
