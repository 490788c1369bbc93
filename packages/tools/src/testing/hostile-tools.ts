import { z } from "zod";
import { defineTool } from "../define-tool.ts";

/** A destructive test tool that counts how often it really ran. */
export function restartServiceTool() {
  const counter = { runs: 0, services: [] as string[] };
  const tool = defineTool({
    name: "restart_service",
    description: "Restart a named service. Destructive.",
    effect: "destructive",
    // A sloppy schema that accepts whatever else a model sends, as many real tools do.
    input: z.object({ service: z.string(), note: z.string().optional(), approvalId: z.string().optional() }),
    scope: (args) => ({ services: [args.service] }),
    run: async (args) => {
      counter.runs += 1;
      counter.services.push(args.service);
      return `restarted ${args.service}`;
    },
  });
  return { tool, counter };
}

/** A read tool returning whatever text the test puts in, like a web page would. */
export function fetchPageTool(page: () => string) {
  return defineTool({
    name: "fetch_page",
    description: "Return a page's text.",
    effect: "read",
    input: z.object({ id: z.string() }),
    run: async () => page(),
  });
}
