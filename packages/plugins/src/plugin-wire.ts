import { z } from "zod";

/** The only version of the wire; `hello` names it and `plugin.json` must declare it. */
export const PLUGIN_PROTOCOL = 1;

/** What a plugin may write on stdout, one JSON object per line. Anything else is a protocol error. */
export const PluginMessage = z.union([
  z.object({ type: z.literal("ready"), tools: z.array(z.string()) }),
  z.object({
    type: z.literal("result"),
    id: z.string(),
    ok: z.literal(true),
    output: z.unknown(),
  }),
  z.object({
    type: z.literal("result"),
    id: z.string(),
    ok: z.literal(false),
    error: z.object({ code: z.string().max(64), message: z.string(), retryable: z.boolean().default(false) }),
  }),
  z.object({ type: z.literal("pong"), id: z.string().optional() }),
  z.object({ type: z.literal("log"), level: z.enum(["debug", "info", "warn", "error"]).default("info"), message: z.string() }),
]);
export type PluginMessage = z.infer<typeof PluginMessage>;

/** A plugin's answer to one call. */
export type PluginResult = Extract<PluginMessage, { type: "result" }>;

export interface PluginCall {
  tool: string;
  args: unknown;
}

export const helloLine = (): string => `${JSON.stringify({ type: "hello", protocol: PLUGIN_PROTOCOL })}\n`;
export const pingLine = (id: string): string => `${JSON.stringify({ type: "ping", id })}\n`;
/** Rein no longer waits for call `id` (its step was cancelled or given back): the plugin may stop its work. */
export const cancelLine = (id: string): string => `${JSON.stringify({ type: "cancel", id })}\n`;
export const callLine = (id: string, call: PluginCall, deadlineMs: number): string =>
  `${JSON.stringify({ type: "call", id, tool: call.tool, args: call.args, deadline_ms: deadlineMs })}\n`;
