import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";
import { ReinError } from "../errors.ts";
import { type AnyTool, defineTool } from "../tools/define-tool.ts";
import { convertMcpContent, type McpToolOutput } from "./mcp-content.ts";
import { mcpToolName } from "./mcp-tool-name.ts";

/** The runtime tool name, under the server's prefix like its own tools, so granting `<server>__*` grants it. */
export const READ_RESOURCE = "read_resource";

/**
 * `<server>__read_resource`: reads a resource the server named (a resource
 * link in a result) with `resources/read`. It is an ordinary tool, so the
 * call passes the same pipeline as the server's own: surface, scope
 * (`services: mcp:<server>` plus the server's host), policy, trace.
 */
/** Reads one resource of the server, through its supervisor. */
export type ReadResource = (uri: string, signal: AbortSignal, timeoutMs: number) => Promise<Awaited<ReturnType<Client["readResource"]>>>;

export function readResourceTool(read: ReadResource, server: string, scope: () => { services: string[]; hosts?: string[] }, timeoutMs: number): AnyTool {
  const name = mcpToolName(server, READ_RESOURCE);
  return defineTool<{ uri: string }, McpToolOutput>({
    name,
    description: `Reads a resource of MCP server ${server} by its URI (resources/read), e.g. one a resource link in a result of its tools names. Returns its text; binary contents are stored as artifacts and images are shown.`,
    effect: "read",
    input: z.object({ uri: z.string().min(1).describe("The resource's URI, as the server gave it") }),
    trust: "external",
    timeoutMs,
    scope,
    async run({ uri }, context) {
      const result = await read(uri, context.signal, timeoutMs);
      if (result.contents.length === 0) throw new ReinError("tool_failed", `MCP server ${server} returned no contents for ${uri}`, { details: { failure: "different_action" } });
      const contentContext = { server, runId: context.runId, tool: name, artifacts: context.artifacts, readResourceTool: name };
      const blocks = result.contents.map((resource) =>
        "blob" in resource && resource.mimeType?.startsWith("image/")
          ? { type: "image", data: resource.blob, mimeType: resource.mimeType }
          : { type: "resource", resource },
      );
      const output = await convertMcpContent(blocks as Record<string, unknown>[], contentContext);
      // An image resource is named by its URI beside the image.
      if (blocks.some((block) => block.type === "image")) output.text = `[resource ${uri}]\n${output.text}`;
      return output;
    },
    render: (output) => output.text,
    images: (output) => output.images,
    traceFields: (output) => ({ images: output.images.length }),
  });
}
