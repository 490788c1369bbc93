import { z } from "zod";

export const ScriptedToolCall = z.object({
  id: z.string().optional(),
  name: z.string().min(1),
  input: z.unknown().default({}),
});

export const ScriptedTurn = z
  .object({
    text: z.string().optional(),
    toolCalls: z.array(ScriptedToolCall).default([]),
    /** A structured-output reply (planner, evaluator, judge). */
    output: z.unknown().optional(),
    stopReason: z.enum(["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal"]).optional(),
    /** How long the emulated model takes to answer this turn, in ms (load tests); the request's signal cuts it short. */
    delayMs: z.number().int().nonnegative().optional(),
    usage: z
      .object({
        inputTokens: z.number().int(),
        outputTokens: z.number().int(),
        cacheReadTokens: z.number().int().nonnegative(),
        cacheWriteTokens: z.number().int().nonnegative(),
      })
      .partial()
      .optional(),
  })
  .refine((turn) => turn.text !== undefined || turn.toolCalls.length > 0 || turn.output !== undefined, {
    message: "a scripted turn needs text, toolCalls or output",
  });
export type ScriptedTurn = z.infer<typeof ScriptedTurn>;

/**
 * One scripted conversation. It serves a request when every `match` string
 * occurs in the request's system prompt or first user message; the turn
 * served is the one at the position of the request in its conversation
 * (the number of assistant messages already in it). Selecting by content and
 * position, never by hidden counters, keeps a script deterministic across
 * processes, retries and resumed steps.
 */
export const ScriptedConversation = z.object({
  match: z.union([z.string(), z.array(z.string())]).optional(),
  turns: z.array(ScriptedTurn).min(1),
  /** Keep answering with the last turn once the script runs out. */
  repeatLast: z.boolean().default(false),
});
export type ScriptedConversation = z.infer<typeof ScriptedConversation>;

export const ModelScript = z.object({
  planner: z.array(ScriptedConversation).default([]),
  worker: z.array(ScriptedConversation).default([]),
  evaluator: z.array(ScriptedConversation).default([]),
  judge: z.array(ScriptedConversation).default([]),
});
export type ModelScript = z.infer<typeof ModelScript>;
export type ModelScriptInput = z.input<typeof ModelScript>;
