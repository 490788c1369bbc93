import { z } from "zod";
import { traceKinds } from "./trace-kind.ts";

const processFields = {
  plugin: z.string(),
  /** The sandbox the plugin's process runs in; null before its first start. */
  sandbox: z.string().nullable(),
};

const breakerState = z.enum(["closed", "open", "half_open"]);

/** Out-of-process plugins: their processes and circuit breaker (plugins/plugin-host.ts). */
export const pluginEvents = traceKinds({
  "plugin.process_started": {
    summary: "A plugin's process started (or restarted).",
    emittedBy: "plugin host",
    payload: z.object({ ...processFields, pid: z.number().int().optional(), restart: z.boolean() }),
  },
  "plugin.process_start_failed": {
    summary: "A plugin's process could not start.",
    emittedBy: "plugin host",
    payload: z.object({ ...processFields, message: z.string(), failuresInARow: z.number().int() }),
  },
  "plugin.process_exited": {
    summary: "A plugin's process ended; `killedFor` says why Rein stopped it, `unexpected` whether it died on its own.",
    emittedBy: "plugin host",
    payload: z.object({
      ...processFields,
      pid: z.number().int().optional(),
      exitCode: z.number().int().nullable(),
      signal: z.string().nullable(),
      killedFor: z.enum(["deadline", "unhealthy", "protocol_error", "idle", "stopped"]).nullable(),
      unexpected: z.boolean(),
      detail: z.string().optional(),
    }),
  },
  "plugin.breaker_changed": {
    summary: "A plugin's circuit breaker opened, half-opened or closed.",
    emittedBy: "plugin host",
    payload: z.object({ plugin: z.string(), from: breakerState, to: breakerState, reason: z.string(), failures: z.number().int() }),
  },
});
