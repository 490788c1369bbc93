import type { ModelProvider } from "../model-provider.ts";

/**
 * `provider`, counting its calls; `before` runs ahead of each call with its
 * number (from 1), to hold or fail a chosen one.
 */
export function countingProvider(provider: ModelProvider, before?: (call: number) => Promise<void>): ModelProvider & { calls: number } {
  const counted = {
    kind: provider.kind,
    name: provider.name,
    model: provider.model,
    calls: 0,
    complete: async (...args: Parameters<ModelProvider["complete"]>) => {
      counted.calls += 1;
      await before?.(counted.calls);
      return provider.complete(...args);
    },
  };
  return counted;
}
