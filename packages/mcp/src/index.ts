// MCP servers as a tool source: each configured server (stdio, in the sandbox, or remote)
// connected, its tools presented as outside text and run through the same executor as any tool.
export { McpConfig, McpServerConfig, type McpServerConfigInput } from "./mcp-config.ts";
export { mcpToolName } from "./mcp-tool-name.ts";
export {
  type ConnectMcpOptions,
  connectMcpServer,
  type McpConnection,
  type McpStartFailureReport,
  startMcpServers,
  type WithheldTool,
} from "./mcp-tools.ts";
