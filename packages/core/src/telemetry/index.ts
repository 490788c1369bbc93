export { CallSpans } from "./call-spans.ts";
export { GENAI } from "./genai-attributes.ts";
export { OtelConfig } from "./otel-config.ts";
export { type LiveTelemetry, startOtel, stopOtel } from "./start-otel.ts";
