import { z } from "zod";
import { HashString } from "./hash-string.ts";
import { FailureClass } from "./tool-events.ts";
import { RecordedResult } from "./recorded-result.ts";

/**
 * Written before a side-effecting call starts. Found later with no outcome
 * beside it, it means the call was cut off (a crash, or a worker past its
 * shutdown grace) and nobody knows whether its effect happened.
 */
export const CallIntent = z.object({
  schemaVersion: z.literal(1),
  kind: z.literal("intent"),
  /** hashOf({tool, args}) of the call, as the model wrote it. */
  fingerprint: HashString,
  /** actionHashOf({tool, args, scope}): the action as approvals name it. */
  actionHash: HashString,
  tool: z.string(),
  /** The validated arguments, when small enough to show a person; their hash is in the fingerprint either way. */
  args: z.unknown().optional(),
  /** Running the call again is safe: its tool is idempotent, or it only reads. */
  repeatable: z.boolean(),
  startedAt: z.string(),
  /** Tells this writer's intent from another's, so only the writer turns it into an outcome. */
  token: z.string(),
});
export type CallIntent = z.infer<typeof CallIntent>;

/** A side-effecting call that ended in an error or a timeout: replayed as that, never run again. */
export const RecordedFailure = z.object({
  schemaVersion: z.literal(1),
  kind: z.literal("failure"),
  fingerprint: HashString,
  status: z.enum(["error", "timeout"]),
  /** The tool's error text, before redaction (like `RecordedResult.rendered`). */
  error: z.string(),
  failure: FailureClass,
  attempts: z.number().int().positive(),
  observedAt: z.string(),
});
export type RecordedFailure = z.infer<typeof RecordedFailure>;

/** How a call ended, as recorded under its idempotency key. */
export const RecordedOutcome = z.union([RecordedFailure, RecordedResult]);
export type RecordedOutcome = z.infer<typeof RecordedOutcome>;

/** What an idempotency key holds: the intent alone, or the outcome that replaced it. */
export const CallRecord = z.union([CallIntent, RecordedFailure, RecordedResult]);
export type CallRecord = z.infer<typeof CallRecord>;
