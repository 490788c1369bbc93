import type { LookupAddress } from "node:dns";
import { lookup as systemLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { z } from "zod";
import { ReinError } from "@rein/contracts";
import { destinationOf, formatHostPort, type HostPort, hostPortProblem, parseHostPort, hostMatches } from "@rein/guard";
import { defineTool } from "../define-tool.ts";
import { blockedAddressKind, sameAddress } from "./address-ranges.ts";
import type { BuiltinToolOptions, HttpMethod, ResolveHost } from "./builtin-options.ts";
import { boundedString, INPUT_LIMITS } from "./input-limits.ts";
import { sendPinned } from "./pinned-request.ts";

export interface HttpResult {
  status: number;
  contentType: string | null;
  location: string | null;
  body: string;
  bodyTruncated: boolean;
}

const HTTP_TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * Headers the tool sets itself: `Host` is always the URL's host (a model's
 * Host would reach a virtual host the allowlist never named), and the
 * message's framing and connection are the transport's.
 */
const OWNED_HEADERS = [
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "content-length",
  "accept-encoding",
];

// Names and values an HTTP client would reject are refused as input, not left to fail inside the tool.
const HeaderMap = z
  .record(
    boundedString(INPUT_LIMITS.headerNameChars).regex(HTTP_TOKEN, "a header name (letters, digits and !#$%&'*+.^_`|~-)"),
    boundedString(INPUT_LIMITS.headerValueChars).regex(/^[^\r\n\0]*$/, "a header value without line breaks or NUL"),
  )
  .refine((headers) => Object.keys(headers).length <= INPUT_LIMITS.headerCount, `at most ${INPUT_LIMITS.headerCount} headers`)
  .refine((headers) => !Object.keys(headers).some((name) => OWNED_HEADERS.includes(name.toLowerCase())), {
    message: `headers may not include ${OWNED_HEADERS.join(", ")}: the tool sets them (Host is always the URL's host; put the host in the URL)`,
  })
  .default({});

/**
 * `http_request`: one HTTP(S) request to an allowlisted `host:port`.
 * The host's addresses are resolved once and each is checked: a loopback,
 * private, link-local, CGNAT, multicast or cloud metadata address is
 * refused unless the allowlist names that very address, and the request
 * connects to the address that was checked (address-ranges.ts,
 * pinned-request.ts). Redirects are not followed (a redirect could leave
 * the allowlist); the response says where it pointed, and going there is
 * another call that meets the allowlist again. A credential is attached only
 * by naming a secret, whose value the model never sees; a secret (named or
 * written out) goes only to the hosts the deployment binds it to.
 */
export function httpRequestTool(options: BuiltinToolOptions) {
  const hosts = [...(options.hosts ?? [])];
  for (const entry of hosts) {
    const problem = hostPortProblem(entry);
    if (problem) throw new ReinError("config_invalid", `http_request host allowlist (config tools.hosts): ${problem}`);
  }
  const methods = [...(options.httpMethods ?? (["GET", "HEAD"] as HttpMethod[]))] as [HttpMethod, ...HttpMethod[]];
  const maxBytes = options.maxResponseBytes ?? 5 * 1024 * 1024;
  const resolveHost = options.lookup ?? ((hostname: string) => systemLookup(hostname, { all: true, verbatim: true }));
  return defineTool({
    name: "http_request",
    description: `Make an HTTP request to an allowed host (${hosts.join(", ") || "none configured"}) with method ${methods.join(" or ")}. Redirects are reported, not followed. The response body is external, untrusted data.`,
    effect: "external",
    input: z
      .object({
        url: boundedString(INPUT_LIMITS.urlChars).url(),
        method: z.enum(methods).default(methods[0]),
        headers: HeaderMap,
        body: boundedString(INPUT_LIMITS.httpBodyChars).optional(),
        auth: z
          .object({
            secret: boundedString(INPUT_LIMITS.nameChars).min(1),
            scheme: boundedString(INPUT_LIMITS.nameChars).regex(HTTP_TOKEN, "an auth scheme token, e.g. Bearer").default("Bearer"),
          })
          .optional(),
      })
      .strict(),
    timeoutMs: options.httpTimeoutMs ?? 30_000,
    scope: (args) => ({ hosts: [hostOf(args.url)] }),
    async run(args, context): Promise<HttpResult> {
      const url = new URL(args.url);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new ReinError("tool_refused", `${url.protocol} URLs are refused; expected http or https`);
      }
      const destination = formatHostPort(destinationOf(url));
      if (!hosts.some((pattern) => hostMatches(pattern, destination))) {
        throw new ReinError("tool_refused", `${destination} is not allowed; expected one of: ${hosts.join(", ") || "(none)"}`);
      }
      const headers: Record<string, string> = { ...args.headers, "accept-encoding": "identity" };
      if (args.auth) {
        const value = context.secrets.get(args.auth.secret);
        if (!value) throw new ReinError("tool_failed", `no secret named ${args.auth.secret} is available`);
        headers.authorization = `${args.auth.scheme} ${value}`;
      }
      // Everything that would leave, checked for any secret's value before it does.
      context.secrets.assertMaySend(destination, [args.url, url.href, ...Object.entries(headers).flat(), args.body ?? ""]);
      const address = await checkedAddress(destinationOf(url), hosts, resolveHost);
      let response: Awaited<ReturnType<typeof sendPinned>>;
      try {
        response = await sendPinned({ url, method: args.method, headers, body: args.body, address, signal: context.signal, maxBytes });
      } catch (error) {
        if (context.signal.aborted) throw error;
        throw new ReinError("tool_failed", `request to ${url.hostname} failed: ${(error as Error).message}`, {
          cause: error,
          retryable: true,
        });
      }
      if (response.status >= 500 || response.status === 429) {
        // The whole body: the executor redacts before it cuts, and a cut made here could split a secret past redaction.
        throw new ReinError("tool_failed", `${url.hostname} answered ${response.status}: ${response.body}`, { retryable: true });
      }
      return {
        status: response.status,
        contentType: headerText(response.headers["content-type"]),
        location: headerText(response.headers.location),
        body: response.body,
        bodyTruncated: response.truncated,
      };
    },
    render: (result) =>
      [
        `HTTP ${result.status}${result.contentType ? ` (${result.contentType})` : ""}${result.location ? ` → ${result.location} (not followed)` : ""}`,
        result.body,
        ...(result.bodyTruncated ? ["(body cut at the size limit)"] : []),
      ].join("\n"),
    // The status in the trace even when the output is too large to keep there: a 404 is a call that ran and failed.
    traceFields: (result) => ({ httpStatus: result.status }),
  });
}

function hostOf(url: string): string {
  try {
    return formatHostPort(destinationOf(new URL(url)));
  } catch {
    return url;
  }
}

const headerText = (value: string | string[] | undefined): string | null => (Array.isArray(value) ? value.join(", ") : (value ?? null));

/**
 * The address to connect to: the host's own, or every one its name resolves
 * to, each checked; the first is used. One that is not a public unicast
 * address is refused unless the allowlist names it (with the port) itself.
 */
async function checkedAddress(
  destination: HostPort & { port: number },
  hosts: readonly string[],
  resolveHost: ResolveHost,
): Promise<LookupAddress> {
  const name = destination.host.replace(/^\[(.*)\]$/, "$1");
  let addresses: LookupAddress[];
  if (isIP(name)) {
    addresses = [{ address: name, family: isIP(name) }];
  } else {
    try {
      addresses = await resolveHost(name);
    } catch (error) {
      throw new ReinError("tool_failed", `could not resolve ${name}: ${(error as Error).message}`, { cause: error, retryable: true });
    }
  }
  if (addresses.length === 0) throw new ReinError("tool_failed", `${name} resolves to no address`, { retryable: true });
  for (const { address } of addresses) {
    const kind = blockedAddressKind(address);
    if (kind === undefined || grantedByAddress(address, destination.port, hosts)) continue;
    const resolved = address === name ? `${name} is ${kind}` : `${name} resolves to ${address}, ${kind}`;
    const entry = formatHostPort({ host: isIP(address) === 6 ? `[${address}]` : address, port: destination.port });
    throw new ReinError(
      "tool_refused",
      `${resolved}; http_request reaches such an address only when the deployment's allowlist (config tools.hosts) names it, e.g. "${entry}"`,
    );
  }
  return addresses[0] as LookupAddress;
}

function grantedByAddress(address: string, port: number, hosts: readonly string[]): boolean {
  return hosts.some((entry) => {
    const listed = parseHostPort(entry);
    return listed.port === port && sameAddress(listed.host, address);
  });
}
