/** A test framework's hook registrar: vitest's `beforeEach`, `afterEach`, `beforeAll` or `afterAll`. */
export type HookRegistrar = (hook: () => Promise<void>) => void;

/**
 * A fixture opened by `open` in the `before` hook and closed by `close` in
 * the `after` hook (per test with `beforeEach`/`afterEach`, per file or
 * `describe` with `beforeAll`/`afterAll`). The accessor returned throws
 * outside those hooks, naming `what`: read there, it would be another test's.
 */
export function fixtureAround<T>(
  before: HookRegistrar,
  after: HookRegistrar,
  what: string,
  open: () => Promise<T> | T,
  close: (value: T) => Promise<void> | void,
): () => T {
  let opened: { value: T } | undefined;
  before(async () => {
    opened = { value: await open() };
  });
  after(async () => {
    const closing = opened;
    opened = undefined;
    if (closing) await close(closing.value);
  });
  return () => {
    if (!opened) throw new Error(`${what} is open only while its tests run`);
    return opened.value;
  };
}

/**
 * An object whose properties `keys` read and write through to what
 * `current` returns at the time: a fixture's values change from test to
 * test, so they are looked up when used, never copied.
 */
export function liveView<T extends object, K extends keyof T>(current: () => T, keys: readonly K[]): Pick<T, K> {
  // Filled in below: each key becomes an accessor.
  const view = {} as Pick<T, K>;
  for (const key of keys) {
    Object.defineProperty(view, key, {
      enumerable: true,
      get: () => current()[key],
      set: (value: T[K]) => {
        current()[key] = value;
      },
    });
  }
  return view;
}
