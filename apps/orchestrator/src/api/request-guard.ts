import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { ReinError } from "@rein/contracts";
import { type ApiToken, type Caller, CLEAR_TOKEN_ROLE, MIN_TOKEN_LENGTH, SHARED_TOKEN_ROLE, sha256Of } from "./api-tokens.ts";

/** Who the shared token (`--token-env`, or the generated one) speaks for: it names no person. */
export const SHARED_TOKEN_IDENTITY = "operator";

export interface RequestGuardOptions {
  /**
   * Required on every request but the dashboard page, as `Authorization:
   * Bearer <token>`; its identity is SHARED_TOKEN_IDENTITY, its role
   * SHARED_TOKEN_ROLE (admin). Optional only when `namedTokens` or `tokens`
   * hold at least one.
   */
  token?: string;
  /** Tokens in clear by the identity they stand for (a decision taken with one is recorded under its name); each is an admin. */
  namedTokens?: Readonly<Record<string, string>>;
  /** Tokens by their sha256, each with its role and the runs it may see (`--tokens-file`, tokensOfFile). */
  tokens?: readonly ApiToken[];
  /**
   * Origins (scheme://host[:port]) besides the server's own that may call the
   * API from a browser; their hosts are also accepted in `Host`.
   */
  allowedOrigins?: readonly string[];
  /** The name given to `--host`, accepted in `Host` when it is a name rather than an address. */
  bindHost?: string;
}

/** A request the guard refuses: the HTTP status and a message that says what was expected. */
export class RefusedRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * What every request must pass before a route sees it, in the order an
 * attacker meets it: a Host that names this server (DNS rebinding sends a
 * foreign name), an Origin that is this server or an allowed one (a page on
 * another site), the bearer token, and a JSON content type on every body (a
 * cross-site form or `text/plain` POST needs no preflight; `application/json`
 * does, and no preflight is ever granted to an origin not allowed).
 */
export class RequestGuard {
  private readonly tokens: readonly ApiToken[];
  private readonly allowedOrigins: Set<string>;
  private readonly originHosts: Set<string>;
  private readonly bindHost: string | undefined;

  constructor(options: RequestGuardOptions) {
    this.tokens = tokensOf(options);
    this.bindHost = options.bindHost?.toLowerCase();
    this.allowedOrigins = new Set();
    this.originHosts = new Set();
    for (const origin of options.allowedOrigins ?? []) {
      const url = parseOrigin(origin);
      this.allowedOrigins.add(url.origin);
      // Behind a TLS proxy the Host names no port; a direct request names it.
      this.originHosts.add(url.host);
      this.originHosts.add(authority(url.hostname, url.port || (url.protocol === "https:" ? "443" : "80")));
    }
  }

  /** The origin a browser is allowed to call from, for CORS headers; undefined for same-origin or none. */
  corsOrigin(request: IncomingMessage): string | undefined {
    const origin = request.headers.origin;
    return origin && this.allowedOrigins.has(origin) ? origin : undefined;
  }

  /**
   * Throws `RefusedRequest` unless the request may reach a route; returns
   * who its token stands for (undefined on a public route).
   */
  check(request: IncomingMessage, options: { needsToken: boolean }): Caller | undefined {
    this.checkSource(request);
    const caller = options.needsToken ? this.callerOf(request) : undefined;
    if (request.method !== "GET" && request.method !== "HEAD" && !isJson(request.headers["content-type"])) {
      throw new RefusedRequest(
        415,
        `content-type ${request.headers["content-type"] ?? "(none)"} is not accepted; expected application/json`,
      );
    }
    return caller;
  }

  private callerOf(request: IncomingMessage): Caller {
    const given = bearerOf(request.headers.authorization);
    if (!given)
      throw new RefusedRequest(
        401,
        "missing bearer token; expected Authorization: Bearer <the token rein serve printed, the value of its --token-env variable, or yours from --tokens-file>",
      );
    // Compared by hash, every one of them, so the time taken says nothing about which came close.
    const hash = sha256Of(given);
    let found: ApiToken | undefined;
    for (const token of this.tokens) if (timingSafeEqual(hash, token.sha256)) found ??= token;
    if (!found)
      throw new RefusedRequest(
        401,
        "wrong bearer token; expected the token rein serve printed, the value of its --token-env variable, or yours from --tokens-file",
      );
    const { sha256: _secret, ...caller } = found;
    return caller;
  }

  /** Host and Origin only: what a CORS preflight, which carries no token, must pass. */
  checkSource(request: IncomingMessage): void {
    this.checkOrigin(request, this.checkHost(request));
  }

  private checkHost(request: IncomingMessage): string {
    const header = request.headers.host?.toLowerCase();
    if (!header) throw new RefusedRequest(400, "the request has no Host header; expected this server's address");
    const localPort = String(request.socket.localPort ?? "");
    const withPort = /:\d+$/.test(header) ? header : `${header}:80`;
    const [hostname] = splitAuthority(withPort);
    const ownPort = withPort === authority(hostname, localPort);
    const ownName = LOOPBACK_NAMES.includes(hostname) || isIP(hostname.replace(/^\[|\]$/g, "")) !== 0 || hostname === this.bindHost;
    if ((ownName && ownPort) || this.originHosts.has(withPort) || this.originHosts.has(header)) return header;
    throw new RefusedRequest(
      421,
      `Host ${header} is not this server; expected localhost, an IP address of it, or a host from --allow-origin`,
    );
  }

  private checkOrigin(request: IncomingMessage, host: string): void {
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (this.allowedOrigins.has(origin)) return;
    if (origin === `http://${host}` || origin === `http://${host.replace(/:80$/, "")}`) return;
    throw new RefusedRequest(
      403,
      `Origin ${origin} may not call this API; expected this server's own page or an origin given with --allow-origin`,
    );
  }
}

function tokensOf(options: RequestGuardOptions): ApiToken[] {
  const shared = options.token === undefined ? [] : [{ identity: SHARED_TOKEN_IDENTITY, token: options.token, role: SHARED_TOKEN_ROLE }];
  const named = Object.entries(options.namedTokens ?? {}).map(([identity, token]) => ({ identity, token, role: CLEAR_TOKEN_ROLE }));
  const inClear = [...shared, ...named];
  if (inClear.length === 0 && (options.tokens ?? []).length === 0) {
    throw new ReinError(
      "config_invalid",
      `the HTTP API needs a bearer token of at least ${MIN_TOKEN_LENGTH} characters; expected a random secret (rein serve --http generates one)`,
    );
  }
  const tokens: ApiToken[] = [];
  for (const { identity, token, role } of inClear) {
    if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH) {
      throw new ReinError(
        "config_invalid",
        `the HTTP API token of ${identity} is too short; expected a bearer token of at least ${MIN_TOKEN_LENGTH} characters, a random secret (rein serve --http generates one)`,
      );
    }
    tokens.push({ identity, role, sha256: sha256Of(token) });
  }
  tokens.push(...(options.tokens ?? []));
  const hashes = new Set<string>();
  const identities = new Set<string>();
  for (const { identity, sha256 } of tokens) {
    const hex = sha256.toString("hex");
    if (hashes.has(hex))
      throw new ReinError(
        "config_invalid",
        `the HTTP API token of ${identity} is also another identity's; expected one token per identity`,
      );
    if (identities.has(identity))
      throw new ReinError("config_invalid", `the HTTP API has two tokens for ${identity}; expected one token per identity`);
    hashes.add(hex);
    identities.add(identity);
  }
  return tokens;
}

function parseOrigin(origin: string): URL {
  let url: URL;
  try {
    url = new URL(origin);
  } catch (error) {
    throw new ReinError("config_invalid", `--allow-origin ${origin}: expected an origin such as https://rein.example.com`, {
      cause: error,
    });
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin.replace(/\/$/, "")) {
    throw new ReinError(
      "config_invalid",
      `--allow-origin ${origin}: expected scheme://host[:port] with no path, such as https://rein.example.com`,
    );
  }
  return url;
}

const authority = (hostname: string, port: string) => `${hostname}:${port}`;

function splitAuthority(value: string): [string, string] {
  const colon = value.lastIndexOf(":");
  return [value.slice(0, colon), value.slice(colon + 1)];
}

/** The credentials of an `Authorization: Bearer` header (the scheme name is case-insensitive). */
function bearerOf(authorization: string | undefined): string {
  return /^bearer +(.+)$/i.exec(authorization ?? "")?.[1] ?? "";
}

function isJson(contentType: string | undefined): boolean {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() === "application/json";
}
