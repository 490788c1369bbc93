import type { z } from "zod";
import type { ScriptedConversation } from "@rein/models";
import { echoTool } from "@rein/tools/testing";

/** The worker's conversation on the step titled `title`: `calls` turns that each call echo with a new number (so no cached result), then a final text. */
export function echoConversation(title: string, calls: number): z.input<typeof ScriptedConversation> {
  return {
    match: title,
    turns: [
      ...Array.from({ length: calls }, (_, index) => ({ toolCalls: [{ name: echoTool.name, input: { i: index } }] })),
      { text: "Echoed every number." },
    ],
  };
}
