import type { ModelProvider } from "@rein/core";

/** A role's model whose first `hangs` calls never answer: the process holding them is then killed. */
export function hangingFirst(hangs: number, provider: ModelProvider): ModelProvider & { calls: number; release(): void } {
  const hung: (() => void)[] = [];
  const wrapped = {
    name: provider.name,
    kind: provider.kind,
    model: provider.model,
    calls: 0,
    complete: (...args: Parameters<ModelProvider["complete"]>) => {
      wrapped.calls += 1;
      if (wrapped.calls > hangs) return provider.complete(...args);
      return new Promise<never>((_resolve, reject) => hung.push(() => reject(new Error("the killed process's call, released at the end of the test"))));
    },
    release: () => {
      for (const release of hung.splice(0)) release();
    },
  };
  return wrapped;
}

/** A role's model holding every call until `release`: the job it runs stays active meanwhile. */
export function heldUntilRelease(provider: ModelProvider): ModelProvider & { calls: number; release(): void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const wrapped = {
    name: provider.name,
    kind: provider.kind,
    model: provider.model,
    calls: 0,
    complete: async (...args: Parameters<ModelProvider["complete"]>) => {
      wrapped.calls += 1;
      await gate;
      return provider.complete(...args);
    },
    release: () => release(),
  };
  return wrapped;
}
