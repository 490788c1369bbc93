import { z } from "zod";
import { Role } from "@rein/contracts";
import { ContentBlock } from "@rein/contracts/model";
import { PromptCopy } from "../prompt-copy.ts";
import { traceKinds } from "./trace-kind.ts";

/** Model calls of every role, written around each `complete` (models/traced-complete.ts). */
export const modelEvents = traceKinds({
  "model.called": {
    summary: "A role called its model; `inputHash` covers the prompt.",
    emittedBy: "every role",
    payload: z.object({
      role: Role,
      provider: z.string(),
      kind: z.string(),
      model: z.string(),
      tools: z.array(z.string()),
      messages: z.number().int(),
      structured: z.string().nullable(),
      /** References to the prompt's blobs, so the full prompt can be rebuilt. */
      prompt: PromptCopy,
      /**
       * Original → sent for each name the provider saw spelled otherwise (a
       * tool, or an earlier call in the conversation): names like
       * `devserver.stop` go out provider-safe. `tools`, the prompt copy and
       * every reply keep the original names. Absent when no name changed.
       */
      toolNames: z.record(z.string(), z.string()).optional(),
      /** Tools offered with a permissive object schema because theirs could not be sent, and why. Absent when none. */
      toolSchemasReplaced: z.array(z.object({ tool: z.string(), problem: z.string() })).optional(),
    }),
  },
  "model.responded": {
    summary: "The model answered; `usage` holds tokens and cost, `outputHash` covers the content.",
    emittedBy: "every role",
    payload: z.object({
      role: Role,
      provider: z.string(),
      model: z.string(),
      stopReason: z.string(),
      retries: z.number().int(),
      requestId: z.string().nullable(),
      /** "unknown" when the model has no price, so readers show that rather than $0. */
      price: z.literal("unknown").optional(),
      content: z.array(ContentBlock),
    }),
  },
  "model.waited": {
    summary:
      "A call waited for the fleet's shared rate budget of its provider and model; `durationMs` is how long, `reason` what was short. Not granted: the wait would have passed the call's deadline.",
    emittedBy: "every role",
    payload: z.object({
      role: Role,
      provider: z.string(),
      model: z.string(),
      waitedMs: z.number().int().nonnegative(),
      reason: z.enum(["requests", "input_tokens", "output_tokens", "tokens", "in_flight", "paused", "queued"]),
      granted: z.boolean(),
    }),
  },
  "model.failed": {
    summary: "A model call failed after the adapter's retries, or was stopped by its caller (aborted: a cancel, a shutdown).",
    emittedBy: "every role",
    payload: z.object({ role: Role, provider: z.string(), model: z.string(), error: z.string(), aborted: z.boolean().optional() }),
  },
  "model.output_invalid": {
    summary: "A model's structured output did not match its schema; it is asked to repair it.",
    emittedBy: "every role",
    payload: z.object({ role: Role, attempt: z.number().int(), problem: z.string() }),
  },
});
