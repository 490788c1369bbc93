import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ReinError } from "../errors.ts";
import type { SecretBindings } from "../secrets/secret-bindings.ts";
import type { McpServerConfig } from "./mcp-config.ts";

/** A remote server's transport: Streamable HTTP, with its bearer token from a secret bound to `mcp:<server>`. */
export async function remoteTransport(config: McpServerConfig & { url: string }, secrets: SecretBindings | undefined): Promise<Transport> {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const headers: Record<string, string> = {};
  if (config.auth) headers.Authorization = `Bearer ${boundSecret(config, config.auth.bearer, secrets)}`;
  return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } });
}

/** The value of a secret bound to this server; config names the secret (an environment variable), never its value. */
export function boundSecret(config: McpServerConfig, secretName: string, secrets: SecretBindings | undefined): string {
  const consumer = `mcp:${config.name}`;
  const value = secrets?.boundTo(consumer)[secretName];
  if (!value) {
    throw new ReinError(
      "config_invalid",
      `MCP server ${config.name} needs secret ${secretName}, and no such secret with a value is bound to it; expected config secrets to have { "env": "${secretName}", "tools": ["${consumer}"] } and ${secretName} set in the environment`,
    );
  }
  return value;
}
