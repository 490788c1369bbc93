import { z } from "zod";
import { HashString } from "./hash-string.ts";
import { ObservedImage } from "./tool-events.ts";

/**
 * A tool result as the cache and the idempotency store keep it: the rendered
 * text before redaction and truncation, which the rest of the pipeline
 * derives everything from, and when it was observed.
 */
export const RecordedResult = z.object({
  schemaVersion: z.literal(1),
  /** Absent in records written before intents and failures were recorded too. */
  kind: z.literal("result").optional(),
  /** hashOf({tool, args}) of the call that produced it. */
  fingerprint: HashString,
  rendered: z.string(),
  rawOutputHash: HashString,
  empty: z.boolean(),
  /** Images the result shows the model; a replay or cache hit shows them again. */
  images: z.array(ObservedImage).optional(),
  observedAt: z.string(),
});
export type RecordedResult = z.infer<typeof RecordedResult>;
