import type { ModelProvider } from "@rein/models";
import { countingProvider } from "@rein/models/testing";

/** A role's model holding every call until `release`: the job it runs stays active meanwhile. */
export function heldUntilRelease(provider: ModelProvider): ModelProvider & { calls: number; release(): void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return Object.assign(
    countingProvider(provider, () => gate),
    { release: () => release() },
  );
}
