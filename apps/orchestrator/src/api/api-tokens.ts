import { createHash } from "node:crypto";
import { type Goal, ReinError } from "@rein/contracts";
import { z } from "@rein/tools";

/**
 * What a token may do over the HTTP API, each role everything the one before
 * it may: a `viewer` reads runs, traces, approvals, queues and metrics; an
 * `operator` also decides approvals and answers escalated runs; an `admin`
 * also submits and cancels runs. `docs/api.md` has the table by route.
 */
export const ApiRole = z.enum(["viewer", "operator", "admin"]);
export type ApiRole = z.infer<typeof ApiRole>;

const RANK: Record<ApiRole, number> = { viewer: 0, operator: 1, admin: 2 };

/** Whether `role` includes what `needed` may do. */
export const roleIncludes = (role: ApiRole, needed: ApiRole): boolean => RANK[role] >= RANK[needed];

/**
 * The runs a token may see: those whose goal's `metadata` holds every pair
 * given. A run outside it answers 404, as a run that does not exist; a run
 * such a token submits gets the pairs written into its goal.
 */
export const RunScope = z
  .object({
    metadata: z
      .record(z.string().min(1), z.string())
      .refine((pairs) => Object.keys(pairs).length > 0, 'expected at least one metadata pair, such as {"team": "payments"}'),
  })
  .strict();
export type RunScope = z.infer<typeof RunScope>;

/** Who a request's token stands for, and what it may do. */
export interface Caller {
  identity: string;
  role: ApiRole;
  /** Absent: every run. */
  runs?: RunScope;
}

/** A token as the guard holds it: never the token, only its sha256. */
export interface ApiToken extends Caller {
  sha256: Buffer;
}

/** Shortest bearer token accepted where its text is seen: anything shorter is guessable, not a secret. */
export const MIN_TOKEN_LENGTH = 16;

const Sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'expected the token\'s sha256 as 64 lowercase hex digits (printf %s "$TOKEN" | sha256sum)');
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name");

/**
 * One entry of `--tokens-file`: the token by its sha256 or by the variable
 * that holds it (so the file holds no secret), with its role and, optionally,
 * the runs it may see. A bare string is the token itself, as files written
 * before roles have it: it keeps what every token could do then (admin).
 */
export const TokenEntry = z.union([
  z.string().min(MIN_TOKEN_LENGTH, `expected a token of at least ${MIN_TOKEN_LENGTH} random characters`),
  z
    .object({ role: ApiRole, sha256: Sha256Hex.optional(), env: EnvName.optional(), runs: RunScope.optional() })
    .strict()
    .refine((entry) => (entry.sha256 === undefined) !== (entry.env === undefined), "expected exactly one of sha256 and env"),
]);
export type TokenEntry = z.infer<typeof TokenEntry>;

export const TokensFile = z.record(z.string().regex(/^[\w.@-]{1,64}$/, "expected an identity of letters, digits, . @ _ or -"), TokenEntry);
export type TokensFile = z.infer<typeof TokensFile>;

/** The role of the shared token (`--token-env`, or the one `rein serve` generates and prints): it can do everything, as it always could. */
export const SHARED_TOKEN_ROLE: ApiRole = "admin";
/** The role of a token given in clear, as files written before roles give them. */
export const CLEAR_TOKEN_ROLE: ApiRole = "admin";

export const sha256Of = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

/**
 * The guard's tokens from a tokens file: each by its hash, read from the
 * environment where the entry names a variable.
 */
export function tokensOfFile(file: TokensFile, env: NodeJS.ProcessEnv): ApiToken[] {
  return Object.entries(file).map(([identity, entry]) => {
    if (typeof entry === "string") return { identity, role: CLEAR_TOKEN_ROLE, sha256: sha256Of(entry) };
    const { role, runs } = entry;
    const scope = runs ? { runs } : {};
    if (entry.sha256 !== undefined) return { identity, role, ...scope, sha256: Buffer.from(entry.sha256, "hex") };
    const value = env[entry.env as string];
    if (!value)
      throw new ReinError(
        "config_invalid",
        `the token of ${identity} is read from ${entry.env}, which is not set; expected it to hold the token`,
      );
    if (value.length < MIN_TOKEN_LENGTH)
      throw new ReinError(
        "config_invalid",
        `the token of ${identity} in ${entry.env} is too short; expected at least ${MIN_TOKEN_LENGTH} random characters`,
      );
    return { identity, role, ...scope, sha256: sha256Of(value) };
  });
}

/** Whether `caller` may see a run of `goal`. */
export function seesRun(caller: Caller, goal: Pick<Goal, "metadata">): boolean {
  if (!caller.runs) return true;
  return Object.entries(caller.runs.metadata).every(([key, value]) => goal.metadata[key] === value);
}
