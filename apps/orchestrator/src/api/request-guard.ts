import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { ReinError } from "@rein/core";

/** Shortest bearer token accepted: anything shorter is guessable, not a secret. */
export const MIN_TOKEN_LENGTH = 16;

/** Who the shared token (`--token-env`, or the generated one) speaks for: it names no person. */
export const SHARED_TOKEN_IDENTITY = "operator";

export interface RequestGuardOptions {
  /**
   * Required on every request but the dashboard page, as `Authorization:
   * Bearer <token>`; its identity is SHARED_TOKEN_IDENTITY. Optional only
   * when `namedTokens` holds at least one.
   */
  token?: string;
  /** Tokens by the identity they stand for (`--tokens-file`): a decision taken with one is recorded under its name. */
  namedTokens?: Readonly<Record<string, string>>;
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
  private readonly tokens: { identity: string; secret: Buffer }[];
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
   * the identity of the token it carried (undefined on a public route).
   */
  check(request: IncomingMessage, options: { needsToken: boolean }): string | undefined {
    this.checkSource(request);
    const identity = options.needsToken ? this.identityOf(request) : undefined;
    if (request.method !== "GET" && request.method !== "HEAD" && !isJson(request.headers["content-type"])) {
      throw new RefusedRequest(415, `content-type ${request.headers["content-type"] ?? "(none)"} is not accepted; expected application/json`);
    }
    return identity;
  }

  private identityOf(request: IncomingMessage): string {
    const given = bearerOf(request.headers.authorization);
    if (!given) throw new RefusedRequest(401, "missing bearer token; expected Authorization: Bearer <the token rein serve printed, or yours from --tokens-file>");
    // Every token is compared, so the time taken does not say which one came close.
    let identity: string | undefined;
    for (const token of this.tokens) if (sameSecret(given, token.secret)) identity ??= token.identity;
    if (!identity) throw new RefusedRequest(401, "wrong bearer token; expected the token rein serve printed, or yours from --tokens-file");
    return identity;
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
    throw new RefusedRequest(421, `Host ${header} is not this server; expected localhost, an IP address of it, or a host from --allow-origin`);
  }

  private checkOrigin(request: IncomingMessage, host: string): void {
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (this.allowedOrigins.has(origin)) return;
    if (origin === `http://${host}` || origin === `http://${host.replace(/:80$/, "")}`) return;
    throw new RefusedRequest(403, `Origin ${origin} may not call this API; expected this server's own page or an origin given with --allow-origin`);
  }
}

function tokensOf(options: RequestGuardOptions): { identity: string; secret: Buffer }[] {
  const named = Object.entries(options.namedTokens ?? {});
  if (options.token === undefined && named.length === 0) {
    throw new ReinError("config_invalid", `the HTTP API needs a bearer token of at least ${MIN_TOKEN_LENGTH} characters; expected a random secret (rein serve --http generates one)`);
  }
  const tokens = [...(options.token === undefined ? [] : [[SHARED_TOKEN_IDENTITY, options.token] as const]), ...named];
  const seen = new Set<string>();
  for (const [identity, token] of tokens) {
    if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH) {
      throw new ReinError("config_invalid", `the HTTP API token of ${identity} is too short; expected a bearer token of at least ${MIN_TOKEN_LENGTH} characters, a random secret (rein serve --http generates one)`);
    }
    if (seen.has(token)) throw new ReinError("config_invalid", `the HTTP API token of ${identity} is also another identity's; expected one token per identity`);
    seen.add(token);
  }
  return tokens.map(([identity, token]) => ({ identity, secret: Buffer.from(token) }));
}

function parseOrigin(origin: string): URL {
  let url: URL;
  try {
    url = new URL(origin);
  } catch (error) {
    throw new ReinError("config_invalid", `--allow-origin ${origin}: expected an origin such as https://rein.example.com`, { cause: error });
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin.replace(/\/$/, "")) {
    throw new ReinError("config_invalid", `--allow-origin ${origin}: expected scheme://host[:port] with no path, such as https://rein.example.com`);
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

/** Compares without leaking, through timing, how much of the token was right. */
function sameSecret(given: string, expected: Buffer): boolean {
  const candidate = Buffer.from(given);
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}
