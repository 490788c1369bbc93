import { createRequire } from "node:module";
import type * as OtelApi from "@opentelemetry/api";
import type * as OtlpHttp from "@opentelemetry/exporter-trace-otlp-http";
import type * as Resources from "@opentelemetry/resources";
import type * as SdkNode from "@opentelemetry/sdk-trace-node";
import type { Telemetry } from "bullmq";
import type * as BullmqOtel from "bullmq-otel";
import type { TraceEventInput } from "@rein/trace";
import { CallSpans } from "./call-spans.ts";
import type { OtelConfig } from "./otel-config.ts";

const require = createRequire(import.meta.url);

/** What a process with `otel.enabled` hands its queues, consumers and trace log. */
export interface LiveTelemetry {
  /**
   * BullMQ's telemetry hook: a job carries the enqueuing span's context
   * (W3C traceparent) in its options, and a consumer runs the job inside a
   * child span of it, so one run is one trace across processes.
   */
  bullmq: Telemetry;
  /** Called with every trace event this process writes: model and tool calls become spans. */
  observe(event: TraceEventInput): void;
  /** Rein's tracer on this SDK (`rein trace --otel` replays a recorded run through it). */
  tracer: OtelApi.Tracer;
  /** Exports what is still batched. */
  flush(): Promise<void>;
}

let started: { telemetry: LiveTelemetry; provider: SdkNode.NodeTracerProvider } | undefined;

/**
 * The process's OpenTelemetry SDK, registered once on first call: a Node
 * tracer provider (AsyncLocalStorage context) with a batching OTLP/HTTP JSON
 * exporter configured by the standard `OTEL_EXPORTER_OTLP_*` variables. The
 * packages are required here, not imported with `@rein/runtime`, so a process
 * with otel off never loads them. Every runtime of the process shares it.
 */
export function startOtel(config: OtelConfig): LiveTelemetry {
  if (started) return started.telemetry;
  const api = require("@opentelemetry/api") as typeof OtelApi;
  const sdk = require("@opentelemetry/sdk-trace-node") as typeof SdkNode;
  const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http") as typeof OtlpHttp;
  const { resourceFromAttributes } = require("@opentelemetry/resources") as typeof Resources;
  const { BullMQOtel } = require("bullmq-otel") as typeof BullmqOtel;
  const exporter = new OTLPTraceExporter();
  const provider = new sdk.NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName ?? process.env.OTEL_SERVICE_NAME ?? "rein" }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  provider.register();
  const tracer = provider.getTracer("rein");
  const spans = new CallSpans(api, tracer);
  const telemetry: LiveTelemetry = {
    bullmq: new BullMQOtel("rein") as unknown as Telemetry,
    observe: (event) => spans.observe(event),
    tracer,
    // The processor's flush does not wait for a batch its timer already handed
    // the exporter; the exporter's does, so nothing is still in flight after.
    flush: async () => {
      await provider.forceFlush();
      await exporter.forceFlush();
    },
  };
  started = { telemetry, provider };
  return telemetry;
}

/** Flushes and stops the process's SDK, if it was started (at process exit). */
export async function stopOtel(): Promise<void> {
  const current = started;
  if (!current) return;
  started = undefined;
  await current.provider.shutdown();
  const api = require("@opentelemetry/api") as typeof OtelApi;
  api.trace.disable();
  api.context.disable();
  api.propagation.disable();
}
