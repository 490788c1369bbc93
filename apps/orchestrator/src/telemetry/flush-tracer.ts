import { trace } from "@opentelemetry/api";

interface Flushable {
  forceFlush?: () => Promise<void>;
  getDelegate?: () => Flushable;
}

/**
 * Flushes whatever SDK the user registered (e.g. with `node --import
 * ./otel-setup.mjs`), so a short-lived CLI does not exit with spans still
 * batched. The API has no flush of its own; without an SDK this does nothing.
 */
export async function flushTracer(): Promise<void> {
  const proxy = trace.getTracerProvider() as Flushable;
  const provider = proxy.getDelegate?.() ?? proxy;
  await provider.forceFlush?.();
}
