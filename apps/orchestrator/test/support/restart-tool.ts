import { type AnyTool, defineTool, z } from "@rein/tools";

/** A destructive tool that always asks for approval and counts how often it really ran. */
export function countingRestartTool(): { tool: AnyTool; restarts(): number; reset(): void } {
  let restarts = 0;
  const tool = defineTool({
    name: "restart_service",
    description: "Restarts a service. Side effect: the service is briefly unavailable.",
    effect: "destructive",
    approval: "always",
    input: z.object({ service: z.string() }),
    scope: (args) => ({ services: [args.service] }),
    run: async (args) => {
      restarts += 1;
      return `restarted ${args.service}`;
    },
  });
  return {
    tool,
    restarts: () => restarts,
    reset: () => {
      restarts = 0;
    },
  };
}
