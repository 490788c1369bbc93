export {
  GENAI,
  modelCallAttributes,
  modelCallKey,
  modelResponseAttributes,
  modelSpanName,
  permissionAttributes,
  toolCallAttributes,
  toolCallKey,
  toolSpanName,
} from "./genai-attributes.ts";
export { OtelConfig } from "./otel-config.ts";
export { type LiveTelemetry, startOtel, stopOtel } from "./start-otel.ts";
