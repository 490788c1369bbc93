import { ReinError } from "@rein/contracts";
import type { Logger, SecretBindings } from "@rein/guard";
import type { McpServerConfig } from "./mcp-config.ts";
import { McpClientCredentialsToken, withClientCredentials } from "./mcp-oauth.ts";
import type { McpTransport } from "./mcp-session.ts";

/** What a remote server's last session leaves for the next connection to resume it. */
interface LastSession {
  sessionId: string;
  protocolVersion: string | undefined;
  resources: boolean;
}

/**
 * A remote server's connections over Streamable HTTP (the official SDK's
 * client), authenticated with a bearer secret or OAuth client credentials.
 * Each new connection after the first (a restart after a failed health check
 * or a dropped transport) first resumes the last session by its
 * `mcp-session-id`; the session opener starts a new one when the server no
 * longer knows it.
 */
export class RemoteConnector {
  private readonly credentials: McpClientCredentialsToken | undefined;
  private readonly bearer: string | undefined;
  private last: LastSession | undefined;

  constructor(
    private readonly config: McpServerConfig & { url: string },
    secrets: SecretBindings | undefined,
    private readonly logger?: Logger,
  ) {
    const auth = config.auth;
    if (auth && "oauth" in auth)
      this.credentials = new McpClientCredentialsToken(config.name, auth.oauth, boundSecret(config, auth.oauth.clientSecret, secrets));
    if (auth && "bearer" in auth) this.bearer = boundSecret(config, auth.bearer, secrets);
  }

  async open(options: { resume: boolean }): Promise<McpTransport> {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    // Asked before connecting, so a token endpoint that refuses says so rather than the server's 401.
    if (this.credentials) await this.credentials.token();
    const previous = options.resume ? this.last : undefined;
    const transport = new StreamableHTTPClientTransport(new URL(this.config.url), {
      requestInit: this.bearer ? { headers: { Authorization: `Bearer ${this.bearer}` } } : undefined,
      fetch: this.credentials ? withClientCredentials(this.credentials) : undefined,
      sessionId: previous?.sessionId,
    });
    if (previous?.protocolVersion) transport.setProtocolVersion(previous.protocolVersion);
    if (previous) this.logger?.info({ mcpServer: this.config.name }, "MCP server reconnecting: resuming its session");
    return {
      transport,
      resumes: previous ? { resources: previous.resources } : undefined,
      opened: (listing) => {
        this.last = transport.sessionId
          ? { sessionId: transport.sessionId, protocolVersion: transport.protocolVersion, resources: listing.resources }
          : undefined;
      },
    };
  }
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
