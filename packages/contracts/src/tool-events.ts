import { z } from "zod";
import { HashString } from "./hash-string.ts";
import { JsonObject } from "./json-object.ts";
import { ToolEffect } from "./permission.ts";

/** The static contract of a tool as models and the policy see it. */
export const ToolSpec = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, "tool names are 1-64 letters, digits, _ . or -"),
  description: z.string().min(1),
  effect: ToolEffect,
  inputSchema: JsonObject,
  outputSchema: JsonObject.optional(),
  idempotent: z.boolean(),
  concurrencySafe: z.boolean(),
  timeoutMs: z.number().int().positive(),
  approval: z.enum(["never", "always", "conditional"]),
});
export type ToolSpec = z.infer<typeof ToolSpec>;

/** What the model asked for, before the runtime decided anything. */
export const ToolCallEvent = z.object({
  callId: z.string(),
  runId: z.string(),
  stepId: z.string(),
  index: z.number().int().nonnegative(),
  name: z.string(),
  args: z.unknown(),
  idempotencyKey: z.string(),
});
export type ToolCallEvent = z.infer<typeof ToolCallEvent>;

export const ToolCallStatus = z.enum([
  "ok",
  "error",
  "refused",
  "invalid_input",
  "denied",
  "pending_approval",
  "budget_exhausted",
  "timeout",
  "invalid_output",
  "cut_off",
  /** A side-effecting call was cut off by a crash before it recorded how it ended; it was not run again. */
  "outcome_unknown",
]);
export type ToolCallStatus = z.infer<typeof ToolCallStatus>;

export const FailureClass = z.enum(["retryable", "different_action", "fatal"]);
export type FailureClass = z.infer<typeof FailureClass>;

/** What the runtime actually did with a call. */
export const ToolResultEvent = z.object({
  callId: z.string(),
  name: z.string(),
  status: ToolCallStatus,
  durationMs: z.number().nonnegative(),
  rawOutputHash: HashString.optional(),
  artifactId: z.string().optional(),
  failure: FailureClass.optional(),
  message: z.string().optional(),
  attempts: z.number().int().positive().default(1),
});
export type ToolResultEvent = z.infer<typeof ToolResultEvent>;

export const Provenance = z.object({
  tool: z.string(),
  argsHash: HashString,
  observedAt: z.string(),
  cacheHit: z.boolean().default(false),
  replayed: z.boolean().default(false),
  /** "tool" for local effects, "external" for text from outside the workspace. */
  trust: z.enum(["runtime", "tool", "external"]),
});
export type Provenance = z.infer<typeof Provenance>;

/** An image a tool result shows the model beside its text (base64). */
export const ObservedImage = z.object({ mediaType: z.string(), data: z.string() });
export type ObservedImage = z.infer<typeof ObservedImage>;

/** What the model sees next. Never the raw result. */
export const Observation = z.object({
  id: z.string(),
  callId: z.string(),
  tool: z.string(),
  status: ToolCallStatus,
  content: z.string(),
  empty: z.boolean().default(false),
  truncated: z
    .object({
      shownLines: z.number().int(),
      totalLines: z.number().int(),
      shownBytes: z.number().int(),
      totalBytes: z.number().int(),
      artifactId: z.string(),
    })
    .optional(),
  flags: z.array(z.string()).default([]),
  /** Images shown to the model with the content, where its provider takes images (each also stored as an artifact). */
  images: z.array(ObservedImage).optional(),
  provenance: Provenance,
});
export type Observation = z.infer<typeof Observation>;
