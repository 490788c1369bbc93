/** The text of an MCP tool result's content blocks; non-text blocks are described, not inlined. */
export function renderMcpContent(content: readonly Record<string, unknown>[]): string {
  return content
    .map((block) => {
      switch (block.type) {
        case "text":
          return String(block.text ?? "");
        case "image":
        case "audio":
          return `[${block.type} ${String(block.mimeType ?? "")}, ${String(block.data ?? "").length} base64 chars]`;
        case "resource": {
          const resource = (block.resource ?? {}) as Record<string, unknown>;
          return typeof resource.text === "string" ? `[resource ${String(resource.uri)}]\n${resource.text}` : `[resource ${String(resource.uri)}]`;
        }
        case "resource_link":
          return `[resource link ${String(block.uri)}]`;
        default:
          return JSON.stringify(block);
      }
    })
    .join("\n");
}
