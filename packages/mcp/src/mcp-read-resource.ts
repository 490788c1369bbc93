import { fileURLToPath, pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";
import { type Scope, type ToolEffect, ReinError } from "@rein/contracts";
import { escapeGlob, destinationOf, formatHostPort } from "@rein/guard";
import { type AnyTool, defineTool } from "@rein/tools";
import { convertMcpContent, type McpToolOutput } from "./mcp-content.ts";
import { mcpToolName } from "./mcp-tool-name.ts";

/** The runtime tool name, under the server's prefix like its own tools, so granting `<server>__*` grants it. */
export const READ_RESOURCE = "read_resource";

/** Reads one resource of the server, through its supervisor. */
export type ReadResource = (uri: string, signal: AbortSignal, timeoutMs: number) => Promise<Awaited<ReturnType<Client["readResource"]>>>;

export interface ReadResourceOptions {
  server: string;
  /** What every call to the server touches: `services: mcp:<server>`, and a remote server's host. */
  serverScope: () => { services: string[]; hosts?: string[] };
  timeoutMs: number;
  /** Config `tools.read_resource.effect`; the deployment's word wins. @defaultValue "read" */
  effect?: ToolEffect;
  /** Config `tools.read_resource.approval`: `never` lets a granted network URI be read without a person. */
  approval?: "never" | "always";
}

/** Schemes whose URI names a host on the network (what the server would fetch for the model), with their default ports. */
const NETWORK_SCHEMES = new Map([
  ["http:", 80],
  ["https:", 443],
  ["ws:", 80],
  ["wss:", 443],
  ["ftp:", 21],
]);

/** What a resource URI names, for the policy: a file of the workspace, a host, or the server's own resource. */
type ResourceTarget = { kind: "file"; path: string } | { kind: "host"; host: string } | { kind: "server" };

/**
 * `<server>__read_resource`: reads a resource the server named (a resource
 * link in a result) with `resources/read`. It is an ordinary tool, so the
 * call passes the same pipeline as the server's own: surface, scope,
 * policy, trace. Its scope is what the URI names: a `file://` URI is a
 * path under the workspace's rules (the grant's paths, deny rules,
 * traversal and links refused) and the server is sent the real path that
 * was checked; a network URI (`http(s)://`, …) is a host the grant must
 * name, and a person is asked before the server fetches it, as for any call
 * that reaches out; any other scheme is the server's own namespace.
 */
export function readResourceTool(read: ReadResource, options: ReadResourceOptions): AnyTool {
  const { server, timeoutMs } = options;
  const name = mcpToolName(server, READ_RESOURCE);
  return defineTool<{ uri: string }, McpToolOutput>({
    name,
    description: `Reads a resource of MCP server ${server} by its URI (resources/read), e.g. one a resource link in a result of its tools names. A file:// URI must be a file of the workspace that your grant covers; an http(s):// URI a host it names. Returns its text; binary contents are stored as artifacts and images are shown.`,
    effect: options.effect ?? "read",
    input: z.object({ uri: z.string().min(1).max(4_096).describe("The resource's URI, as the server gave it") }),
    trust: "external",
    timeoutMs,
    approval:
      options.approval === "always" ? "always" : options.approval === "never" ? "never" : ({ uri }) => targetOf(uri).kind === "host",
    scope: ({ uri }) => scopeOf(targetOf(uri), options.serverScope()),
    async run({ uri }, context) {
      const target = targetOf(uri);
      // The server reads exactly the file policy checked, not the same string through a link or its own working directory.
      const sent = target.kind === "file" ? pathToFileURL(await context.workspace.resolve(target.path)).href : uri;
      const result = await read(sent, context.signal, timeoutMs);
      if (result.contents.length === 0)
        throw new ReinError("tool_failed", `MCP server ${server} returned no contents for ${uri}`, {
          details: { failure: "different_action" },
        });
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

function targetOf(uri: string): ResourceTarget {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw invalidUri(uri, "an absolute URI, e.g. file:///path or https://host/path");
  }
  if (url.protocol === "file:") {
    try {
      // Refuses a file:// URI naming another host, or an encoded slash.
      return { kind: "file", path: fileURLToPath(url) };
    } catch {
      throw invalidUri(uri, "a file:// URI of a local path, e.g. file:///workspace/docs/guide.md");
    }
  }
  const defaultPort = NETWORK_SCHEMES.get(url.protocol);
  if (defaultPort !== undefined) {
    if (!url.hostname) throw invalidUri(uri, "a URL with a host");
    return { kind: "host", host: formatHostPort({ host: destinationOf(url).host, port: url.port ? Number(url.port) : defaultPort }) };
  }
  return { kind: "server" };
}

function scopeOf(target: ResourceTarget, server: { services: string[]; hosts?: string[] }): Scope {
  if (target.kind === "file") return { ...server, paths: [escapeGlob(target.path)] };
  if (target.kind === "host") return { ...server, hosts: [...(server.hosts ?? []), target.host] };
  return server;
}

function invalidUri(uri: string, expected: string): ReinError {
  return new ReinError("workspace_violation", `uri ${JSON.stringify(uri.slice(0, 120))} is not ${expected}`, {
    details: { invalidInput: true },
  });
}
