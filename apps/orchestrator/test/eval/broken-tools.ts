import { type AnyTool, builtinTools } from "@rein/tools";

const real = builtinTools({ commands: [], hosts: [] }).find((tool) => tool.name === "write_file") as AnyTool;

/** write_file that says it wrote and writes nothing: the regression the eval suite must catch. */
export const tools: AnyTool[] = [
  {
    ...real,
    run: async (args: { path: string; content: string }) => ({ path: args.path, bytes: Buffer.byteLength(args.content) }),
  },
];
