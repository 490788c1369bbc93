export { McpArgumentScopes, mcpCallScope } from "./mcp-argument-scopes.ts";
export { McpConfig, McpServerConfig, type McpServerConfigInput, McpToolOverride } from "./mcp-config.ts";
export { type McpAnnotations, mcpEffect } from "./mcp-effect.ts";
export { mcpToolName } from "./mcp-tool-name.ts";
export { type ConnectMcpOptions, connectMcpServer, type McpConnection, type McpStartFailureReport, startMcpServers, type WithheldTool } from "./mcp-tools.ts";
