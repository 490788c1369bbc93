import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { isIP } from "node:net";
import { readFileSync } from "node:fs";
import { ApprovalStore, errorMessage, ReinError, z } from "@rein/core";
import { createHttpApi } from "../api/http-api.ts";
import { MIN_TOKEN_LENGTH } from "../api/request-guard.ts";
import { approvalKeys, requireSigner } from "../approvals/approval-keys.ts";
import { knownToolNames } from "../roles/tooling.ts";
import type { CliContext } from "./cli-context.ts";
import { err } from "./output.ts";

export interface ServeHttpFlags {
  /** `--http PORT`, 0 to 65535 (0: any free port) */
  port: number;
  /** `--host ADDRESS` @defaultValue 127.0.0.1 */
  host?: string;
  /** `--token-env NAME`: the token is read from this variable instead of generated. */
  tokenEnv?: string;
  /** `--tokens-file FILE`: named tokens, `{ "<identity>": "<token>" }`. */
  tokensFile?: string;
  /** `--allow-origin ORIGIN`, repeatable. */
  allowOrigins?: readonly string[];
  /** The roles this process runs, reported by `/healthz`. */
  roles?: readonly string[];
}

/**
 * `rein serve --http`: the API always requires a bearer token. Without
 * `--token-env` one is generated and printed once, inside the dashboard URL's
 * fragment (never sent to the server, so never in a log or a Referer); the
 * page moves it to sessionStorage and sends it as `Authorization: Bearer`.
 */
export async function serveHttp(context: CliContext, flags: ServeHttpFlags): Promise<Server> {
  const { port } = flags;
  const host = flags.host ?? "127.0.0.1";
  if (host.trim() === "") throw new ReinError("config_invalid", "--host: expected an address or name to bind to, such as 127.0.0.1");
  const namedTokens = flags.tokensFile === undefined ? undefined : readNamedTokens(flags.tokensFile);
  // With named tokens and no --token-env, every caller is someone: no shared token is made.
  const token = namedTokens && !flags.tokenEnv ? undefined : tokenFrom(flags.tokenEnv);
  // The API takes people's decisions, so it holds the approval private key; made once when there is none.
  const keys = approvalKeys(context.config, { create: true });
  if (keys.created) err(`rein: wrote an approval key pair to ${context.config.keysDir} (step workers need approval-public.pem)`);
  const server = createHttpApi({
    runtime: context.runtime,
    approvals: new ApprovalStore(context.runtime.redis, context.runtime.keys, { ttlSeconds: context.config.approvals.ttlSeconds }),
    approvalSigner: requireSigner(keys, context.config),
    knownTools: knownToolNames(context.config, []),
    token: token?.value,
    namedTokens,
    allowedOrigins: flags.allowOrigins,
    bindHost: isIP(host) === 0 ? host : undefined,
    roles: flags.roles,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new ReinError("config_invalid", `--host ${host} --http ${flags.port}: cannot listen: ${error.message}`, { cause: error })));
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  const wildcard = host === "0.0.0.0" || host === "::" || host === "[::]";
  const shown = wildcard ? "127.0.0.1" : isIP(host) === 6 ? `[${host}]` : host;
  if (wildcard) err(`rein: the HTTP API listens on every interface (${host}); the bearer token is its only lock, so put TLS in front of it`);
  err(`rein: HTTP API on http://${shown}:${bound} (bearer token required)`);
  if (!token) {
    err(`rein: dashboard at http://${shown}:${bound}/ (paste your token from ${flags.tokensFile})`);
  } else if (token.generated) {
    err("rein: open the dashboard with this URL; it carries the API token, printed only this once:");
    err(`    http://${shown}:${bound}/#token=${token.value}`);
  } else {
    err(`rein: dashboard at http://${shown}:${bound}/ (paste the token from ${flags.tokenEnv})`);
  }
  return server;
}

const NamedTokens = z.record(z.string().regex(/^[\w.@-]{1,64}$/, "expected an identity of letters, digits, . @ _ or -"), z.string().min(MIN_TOKEN_LENGTH, `expected a token of at least ${MIN_TOKEN_LENGTH} random characters`));

function readNamedTokens(file: string): Record<string, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ReinError("config_invalid", `--tokens-file ${file}: ${errorMessage(error)}; expected a JSON object of identity → token`, { cause: error });
  }
  const parsed = NamedTokens.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReinError("config_invalid", `--tokens-file ${file}: ${issue?.path.join(".") || "(top)"}: ${issue?.message}; expected {"alice": "<token>", …}`);
  }
  if (Object.keys(parsed.data).length === 0) throw new ReinError("config_invalid", `--tokens-file ${file}: no tokens; expected {"alice": "<token>", …}`);
  return parsed.data;
}

function tokenFrom(tokenEnv: string | undefined): { value: string; generated: boolean } {
  if (!tokenEnv) return { value: randomBytes(32).toString("base64url"), generated: true };
  const value = process.env[tokenEnv];
  if (!value) throw new ReinError("config_invalid", `--token-env ${tokenEnv}: that environment variable is not set; expected it to hold the API token`);
  if (value.length < MIN_TOKEN_LENGTH) {
    throw new ReinError("config_invalid", `--token-env ${tokenEnv}: the token is ${value.length} characters; expected at least ${MIN_TOKEN_LENGTH} random ones`);
  }
  return { value, generated: false };
}
