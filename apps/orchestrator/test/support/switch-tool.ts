import { type AnyTool, defineTool, z } from "@rein/tools";

/** A destructive tool that always asks for approval before it flips the main switch, and counts how often it really did. */
export function countingSwitchTool(): { tool: AnyTool; flips(): number } {
  let flips = 0;
  const tool = defineTool({
    name: "flip_switch",
    description: "Flip the main switch. Destructive; always needs approval.",
    effect: "destructive",
    approval: "always",
    input: z.object({ position: z.enum(["on", "off"]) }),
    run: async (args) => {
      flips += 1;
      return `switched ${args.position}`;
    },
  });
  return { tool, flips: () => flips };
}
