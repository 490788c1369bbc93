import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { isIP } from "node:net";
import { readFileSync } from "node:fs";
import { errorMessage, ReinError } from "@rein/contracts";
import { ApprovalStore } from "@rein/runtime";
import type { z } from "@rein/tools";
import { createHttpApi, type HttpApiOptions } from "../api/http-api.ts";
import { type ApiToken, MIN_TOKEN_LENGTH, TokensFile, tokensOfFile } from "../api/api-tokens.ts";
import { approvalKeys, requireSigner } from "../approvals/approval-keys.ts";
import { knownToolNames } from "@rein/controller";
import type { CliContext } from "./cli-context.ts";
import { err } from "./output.ts";

export interface ServeHttpFlags {
  /** `--http PORT`, 0 to 65535 (0: any free port) */
  port: number;
  /** `--host ADDRESS` @defaultValue 127.0.0.1 */
  host?: string;
  /** `--token-env NAME`: the token is read from this variable instead of generated. */
  tokenEnv?: string;
  /** `--tokens-file FILE`: named tokens with their roles (`TokensFile`; a bare string is a token in clear, an admin). */
  tokensFile?: string;
  /** `--allow-origin ORIGIN`, repeatable. */
  allowOrigins?: readonly string[];
  /** The roles this process runs, reported by `/healthz`. */
  roles?: readonly string[];
  /** Where `POST /runs` sends `goal.submitted` (HttpApiOptions.intake). */
  intake?: HttpApiOptions["intake"];
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
  const tokens = flags.tokensFile === undefined ? undefined : readTokensFile(flags.tokensFile);
  // With named tokens and no --token-env, every caller is someone: no shared token is made.
  const token = tokens && !flags.tokenEnv ? undefined : tokenFrom(flags.tokenEnv);
  // The API takes people's decisions, so it holds the approval private key; made once when there is none.
  const keys = approvalKeys(context.config, { create: true });
  if (keys.created) err(`rein: wrote an approval key pair to ${context.config.keysDir} (step workers need approval-public.pem)`);
  const server = createHttpApi({
    runtime: context.runtime,
    approvals: new ApprovalStore(context.runtime.redis, context.runtime.keys, { ttlSeconds: context.config.approvals.ttlSeconds }),
    approvalSigner: requireSigner(keys, context.config),
    knownTools: knownToolNames(context.config, []),
    token: token?.value,
    tokens,
    allowedOrigins: flags.allowOrigins,
    bindHost: isIP(host) === 0 ? host : undefined,
    roles: flags.roles,
    intake: flags.intake,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(new ReinError("config_invalid", `--host ${host} --http ${flags.port}: cannot listen: ${error.message}`, { cause: error })),
    );
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  const wildcard = host === "0.0.0.0" || host === "::" || host === "[::]";
  const shown = wildcard ? "127.0.0.1" : isIP(host) === 6 ? `[${host}]` : host;
  if (wildcard)
    err(`rein: the HTTP API listens on every interface (${host}); the bearer token is its only lock, so put TLS in front of it`);
  err(`rein: HTTP API on http://${shown}:${bound} (bearer token required)`);
  if (!token) {
    err(`rein: dashboard at http://${shown}:${bound}/ (paste your own token; ${flags.tokensFile} names its role)`);
  } else if (token.generated) {
    err("rein: open the dashboard with this URL; it carries the API token, printed only this once:");
    err(`    http://${shown}:${bound}/#token=${token.value}`);
  } else {
    err(`rein: dashboard at http://${shown}:${bound}/ (paste the token from ${flags.tokenEnv})`);
  }
  return server;
}

function readTokensFile(file: string): ApiToken[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ReinError("config_invalid", `--tokens-file ${file}: ${errorMessage(error)}; expected a JSON object of identity → token`, {
      cause: error,
    });
  }
  const expected = `expected {"alice": {"role": "operator", "sha256": "<the token's sha256>"}, "ci": {"role": "admin", "env": "CI_TOKEN"}, …}`;
  const parsed = TokensFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReinError("config_invalid", `--tokens-file ${file}: ${issue?.path.join(".") || "(top)"}: ${tokenIssue(issue)}; ${expected}`);
  }
  if (Object.keys(parsed.data).length === 0) throw new ReinError("config_invalid", `--tokens-file ${file}: no tokens; ${expected}`);
  try {
    return tokensOfFile(parsed.data, process.env);
  } catch (error) {
    throw new ReinError("config_invalid", `--tokens-file ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

/** An entry that is neither form names what is wrong with the form it meant: a string's length, or an object's fields. */
function tokenIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue?.code !== "invalid_union") return issue?.message ?? "invalid";
  const branches = issue.errors.map((branch) => branch[0]).filter((inner) => inner !== undefined);
  const meant = branches.find((inner) => inner.code !== "invalid_type") ?? branches[0];
  return meant ? `${meant.path.length > 0 ? `${meant.path.join(".")}: ` : ""}${meant.message}` : issue.message;
}

function tokenFrom(tokenEnv: string | undefined): { value: string; generated: boolean } {
  if (!tokenEnv) return { value: randomBytes(32).toString("base64url"), generated: true };
  const value = process.env[tokenEnv];
  if (!value)
    throw new ReinError(
      "config_invalid",
      `--token-env ${tokenEnv}: that environment variable is not set; expected it to hold the API token`,
    );
  if (value.length < MIN_TOKEN_LENGTH) {
    throw new ReinError(
      "config_invalid",
      `--token-env ${tokenEnv}: the token is ${value.length} characters; expected at least ${MIN_TOKEN_LENGTH} random ones`,
    );
  }
  return { value, generated: false };
}
