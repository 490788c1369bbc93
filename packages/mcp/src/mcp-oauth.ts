import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ReinError } from "@rein/contracts";
import type { McpOAuthClientCredentials } from "./mcp-config.ts";

// A token this close to its stated expiry is renewed before use, not sent to be refused.
const EXPIRY_MARGIN_MS = 30_000;

/**
 * A remote server's access token from OAuth client credentials: fetched
 * with the official SDK's `ClientCredentialsProvider` and `fetchToken`
 * (client_secret_basic), kept until it expires or the server refuses it,
 * and renewed once per refusal. Neither the client secret nor the token is
 * ever put in an error, a log line or the trace.
 */
export class McpClientCredentialsToken {
  private current: { token: string; expiresAt: number } | undefined;
  private fetching: Promise<string> | undefined;

  constructor(
    private readonly server: string,
    private readonly oauth: McpOAuthClientCredentials,
    private readonly clientSecret: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token to send: the one held, unless it has expired. */
  async token(): Promise<string> {
    if (this.current && this.now() < this.current.expiresAt) return this.current.token;
    return this.renew(this.current?.token);
  }

  /** A new token after the server refused `refused`; calls refused with the same token share one renewal. */
  async renew(refused: string | undefined): Promise<string> {
    if (this.current && this.current.token !== refused && this.now() < this.current.expiresAt) return this.current.token;
    this.fetching ??= this.fetchToken().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  private async fetchToken(): Promise<string> {
    const { ClientCredentialsProvider } = await import("@modelcontextprotocol/sdk/client/auth-extensions.js");
    const { fetchToken } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const issuer = new URL(this.oauth.tokenUrl).origin;
    const provider = new ClientCredentialsProvider({
      clientId: this.oauth.clientId,
      clientSecret: this.clientSecret,
      expectedIssuer: issuer,
      scope: this.oauth.scope,
    });
    try {
      const tokens = await fetchToken(provider, issuer, {
        metadata: {
          issuer,
          token_endpoint: this.oauth.tokenUrl,
          authorization_endpoint: this.oauth.tokenUrl,
          response_types_supported: ["token"],
        },
      });
      const lifetimeMs = tokens.expires_in === undefined ? Number.POSITIVE_INFINITY : tokens.expires_in * 1_000 - EXPIRY_MARGIN_MS;
      this.current = { token: tokens.access_token, expiresAt: this.now() + lifetimeMs };
      return tokens.access_token;
    } catch (error) {
      const said = (error instanceof Error ? error.message : String(error)).replaceAll(this.clientSecret, "[client secret]");
      throw new ReinError(
        "config_invalid",
        `MCP server ${this.server} could not get an OAuth token from ${this.oauth.tokenUrl} as client ${this.oauth.clientId} (${said}); expected the token endpoint to grant client_credentials for this client and its secret ${this.oauth.clientSecret}`,
        { retryable: true, details: { server: this.server, tokenUrl: this.oauth.tokenUrl } },
      );
    }
  }
}

/**
 * `fetch` for the server's transport: every request carries the current
 * token, and a request refused with 401 is sent once more with a renewed
 * token (the token expired or was revoked early). A second refusal is the
 * server's answer.
 */
export function withClientCredentials(source: McpClientCredentialsToken, base: FetchLike = fetch): FetchLike {
  const send = (url: string | URL, init: RequestInit | undefined, token: string) => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return base(url, { ...init, headers });
  };
  return async (url, init) => {
    const token = await source.token();
    const response = await send(url, init, token);
    if (response.status !== 401) return response;
    await response.body?.cancel();
    return send(url, init, await source.renew(token));
  };
}
