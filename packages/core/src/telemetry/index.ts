export * from "./genai-attributes.ts";
export { OtelConfig } from "./otel-config.ts";
export { type LiveTelemetry, startOtel, stopOtel } from "./start-otel.ts";
