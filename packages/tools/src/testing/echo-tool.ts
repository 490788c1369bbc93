import { z } from "zod";
import { defineTool } from "../define-tool.ts";

/** A read tool that answers at once: what a test or a measure of the step loop sees is the loop's own cost. */
export const echoTool = defineTool({
  name: "echo",
  description: "Returns its input number.",
  effect: "read",
  input: z.object({ i: z.number().int() }),
  run: async ({ i }) => `echo ${i}`,
});
