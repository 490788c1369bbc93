export interface SseFrame {
  event: string;
  data: unknown;
}

/** Reads Server-Sent Events frame by frame from a fetch response. */
export function sseReader(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const frames: SseFrame[] = [];
  return {
    /** Resolves with the first frame from now on that `matches`; the test's timeout bounds the wait. */
    async until(matches: (frame: SseFrame) => boolean): Promise<SseFrame> {
      for (;;) {
        const index = frames.findIndex(matches);
        if (index >= 0) return frames.splice(0, index + 1).at(-1) as SseFrame;
        frames.length = 0;
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended before the expected frame");
        buffer += decoder.decode(value);
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) frames.push({ event, data: JSON.parse(data) });
          end = buffer.indexOf("\n\n");
        }
      }
    },
    close: () => reader.cancel(),
  };
}
