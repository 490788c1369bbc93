import type { ModelProvider } from "@rein/core";

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
