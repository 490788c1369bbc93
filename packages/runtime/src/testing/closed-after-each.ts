import { afterEach } from "vitest";

/** What a test opens, closed after it, last opened first: `track(value, close)` returns `value`. */
export function closedAfterEach(): { track<T>(value: T, close: (value: T) => Promise<void>): T } {
  const opened: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of opened.splice(0).reverse()) await close();
  });
  return {
    track: (value, close) => {
      opened.push(() => close(value));
      return value;
    },
  };
}
