import type { ArtifactWriter, ToolImage } from "@rein/tools";

/** What an MCP tool result becomes: text for the observation, images for the model, annotations for the trace. */
export interface McpToolOutput {
  text: string;
  images: ToolImage[];
  /** Each content block's annotations (audience, priority, lastModified), by block index; kept in the trace. */
  annotations: { index: number; type: string; annotations: unknown }[];
}

/** The image types Anthropic and OpenAI accept as image input. */
const MODEL_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
// Providers refuse larger images (Anthropic: 5 MB each); a larger one stays an artifact with a description.
const MODEL_IMAGE_BYTES = 5 * 1024 * 1024;

interface ContentContext {
  server: string;
  runId: string;
  tool: string;
  artifacts: ArtifactWriter;
  /** The runtime tool that reads a resource link's target, named in the link's description. */
  readResourceTool: string;
}

/**
 * Turns an MCP result's content blocks into what the model should see. Text
 * stays text; an image goes to the model as an image where its type and size
 * allow, and is stored as an artifact either way; audio and blobs are stored
 * as artifacts, described by MIME type and size; a resource link is shown
 * with its name, description and MIME type and how to read it.
 */
export async function convertMcpContent(content: readonly Record<string, unknown>[], context: ContentContext): Promise<McpToolOutput> {
  const output: McpToolOutput = { text: "", images: [], annotations: [] };
  const lines: string[] = [];
  for (const [index, block] of content.entries()) {
    if (block.annotations !== undefined) output.annotations.push({ index, type: String(block.type), annotations: block.annotations });
    lines.push(await lineOf(block, context, output));
  }
  output.text = lines.join("\n");
  return output;
}

async function lineOf(block: Record<string, unknown>, context: ContentContext, output: McpToolOutput): Promise<string> {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "image":
    case "audio": {
      const mediaType = String(block.mimeType ?? "application/octet-stream");
      const data = String(block.data ?? "");
      const stored = await storeBinary(context, data, mediaType);
      const toModel = block.type === "image" && MODEL_IMAGE_TYPES.has(mediaType) && stored.bytes <= MODEL_IMAGE_BYTES;
      if (toModel) output.images.push({ mediaType, data });
      return `[${block.type} ${mediaType}, ${stored.bytes} bytes, stored as artifact ${stored.artifactId}${toModel ? ", shown to you as an image" : ""}]`;
    }
    case "resource": {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      return describeResource(resource, context);
    }
    case "resource_link":
      return describeLink(block, context.readResourceTool);
    default:
      return JSON.stringify(block);
  }
}

/** An embedded resource's text as text; its blob as an artifact. */
export async function describeResource(resource: Record<string, unknown>, context: ContentContext): Promise<string> {
  const uri = String(resource.uri ?? "");
  const mediaType = typeof resource.mimeType === "string" ? resource.mimeType : undefined;
  if (typeof resource.text === "string") return `[resource ${uri}${mediaType ? ` (${mediaType})` : ""}]\n${resource.text}`;
  if (typeof resource.blob === "string") {
    const stored = await storeBinary(context, resource.blob, mediaType ?? "application/octet-stream");
    return `[resource ${uri}: blob ${mediaType ?? "application/octet-stream"}, ${stored.bytes} bytes, stored as artifact ${stored.artifactId}]`;
  }
  return `[resource ${uri}]`;
}

function describeLink(block: Record<string, unknown>, readResourceTool: string): string {
  const facts = [
    typeof block.name === "string" ? `name: ${block.name}` : undefined,
    typeof block.description === "string" ? `description: ${block.description}` : undefined,
    typeof block.mimeType === "string" ? `type: ${block.mimeType}` : undefined,
    typeof block.size === "number" ? `size: ${block.size} bytes` : undefined,
  ].filter((fact) => fact !== undefined);
  return `[resource link ${String(block.uri)}${facts.length > 0 ? `; ${facts.join("; ")}` : ""}; read it with ${readResourceTool}]`;
}

/** Stores base64 data as an artifact (its media type marked `;base64`, as the store keeps text). */
async function storeBinary(context: ContentContext, data: string, mediaType: string): Promise<{ artifactId: string; bytes: number }> {
  const artifactId = await context.artifacts.put(context.runId, data, { tool: context.tool, mediaType: `${mediaType};base64` });
  return { artifactId, bytes: Buffer.byteLength(data, "base64") };
}
