import { z } from "zod";
import type { ScriptedConversation } from "@rein/models";
import { defineTool } from "../tools/define-tool.ts";

/** A read tool that answers at once: what a test or a measure of the step loop sees is the loop's own cost. */
export const echoTool = defineTool({
  name: "echo",
  description: "Returns its input number.",
  effect: "read",
  input: z.object({ i: z.number().int() }),
  run: async ({ i }) => `echo ${i}`,
});

/** The worker's conversation on the step titled `title`: `calls` turns that each call echo with a new number (so no cached result), then a final text. */
export function echoConversation(title: string, calls: number): z.input<typeof ScriptedConversation> {
  return {
    match: title,
    turns: [...Array.from({ length: calls }, (_, index) => ({ toolCalls: [{ name: echoTool.name, input: { i: index } }] })), { text: "Echoed every number." }],
  };
}
