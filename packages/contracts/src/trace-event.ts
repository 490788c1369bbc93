import { z } from "zod";
import { HashString } from "./hash-string.ts";
import { JsonObject } from "./json-object.ts";
import { Usage } from "./usage.ts";

/** One line of a run's audit trail. `seq` is assigned by the trace log. */
export const TraceEvent = z.object({
  schemaVersion: z.literal(1),
  seq: z.number().int().positive(),
  ts: z.string(),
  runId: z.string(),
  stepId: z.string().nullable(),
  parentStepId: z.string().nullable(),
  kind: z.string().regex(/^[a-z_]+(\.[a-z_]+)+$/, "trace kinds are noun.action, e.g. step.dispatched"),
  inputHash: HashString.optional(),
  outputHash: HashString.optional(),
  durationMs: z.number().nonnegative().optional(),
  usage: Usage.optional(),
  payload: JsonObject,
});
export type TraceEvent = z.infer<typeof TraceEvent>;
