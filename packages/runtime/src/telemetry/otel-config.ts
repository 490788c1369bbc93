import { z } from "zod";

/**
 * Live OpenTelemetry (docs/observability.md): off by default. When on, every
 * role exports spans by OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT` (the
 * exporter reads the standard `OTEL_EXPORTER_OTLP_*` variables itself).
 */
export const OtelConfig = z.object({
  enabled: z.boolean().default(false),
  /** `service.name` of this process's spans. @defaultValue OTEL_SERVICE_NAME, else "rein" */
  serviceName: z.string().min(1).optional(),
});
export type OtelConfig = z.infer<typeof OtelConfig>;
