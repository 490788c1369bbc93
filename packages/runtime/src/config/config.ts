import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { BuildId, JsonObject, Role, PolicyRule, ReinError } from "@rein/contracts";
import { OtelConfig } from "../telemetry/otel-config.ts";
import { McpConfig } from "@rein/mcp/config";
import { PluginsConfig } from "@rein/plugins/config";
import { HostPortEntry, SecretEntry } from "@rein/guard";
import { Price, ProviderConfig, RoleModelConfig } from "@rein/models/config";
import { SandboxLimits, SandboxMode } from "@rein/sandbox/config";
import { EvaluatorConfig } from "./evaluator-config.ts";
import { QueuesConfig } from "./queues-config.ts";
import { DEFAULT_REDIS_URL, redisUrlNamedBy } from "./redis-url.ts";
import { RedriveConfig } from "./redrive-config.ts";
import { RepeatSafeRule } from "./repeat-safe-config.ts";
import { RetentionConfig } from "./retention-config.ts";
import { jsonErrorLocation, unknownKeys } from "./unknown-keys.ts";

const defaultRole = (): RoleModelConfig => RoleModelConfig.parse({ provider: "scripted", model: "scripted-1" });

export const ReinConfig = z.object({
  redisUrl: z.string().default(DEFAULT_REDIS_URL),
  prefix: z
    .string()
    .regex(/^[a-zA-Z0-9_.-]+$/, "expected letters, digits, _ . or -")
    .default("rein"),
  /**
   * `cluster`: seed URLs of a Redis Cluster (`redis://host:port`, a password
   * in the first); with it, `redisUrl` is not used. Env `REIN_REDIS_CLUSTER`,
   * comma-separated.
   */
  redis: z
    .object({
      cluster: z
        .array(z.string().regex(/^rediss?:\/\//, "expected redis://host:port or rediss://host:port"))
        .min(1)
        .optional(),
    })
    .strict()
    .default({}),
  workspaceRoot: z.string().default(".rein/workspaces"),
  /** Where key pairs live as `<name>-private.pem` / `<name>-public.pem` (env `REIN_KEYS_DIR`). */
  keysDir: z.string().default(".rein/keys"),
  /**
   * The directory whose subdirectories are the seeds a goal may name in
   * `workspace` (over HTTP, say). Absent, goals cannot name one.
   */
  seedsRoot: z.string().optional(),
  providers: z.record(z.string(), ProviderConfig).default({ scripted: { kind: "scripted", maxRetries: 0 } }),
  roles: z
    .object({
      planner: RoleModelConfig.default(defaultRole),
      worker: RoleModelConfig.default(defaultRole),
      evaluator: RoleModelConfig.default(defaultRole),
      /** The model the evaluator asks what rules cannot decide. @defaultValue the evaluator role's model */
      judge: RoleModelConfig.default(defaultRole),
    })
    .default({ planner: defaultRole(), worker: defaultRole(), evaluator: defaultRole(), judge: defaultRole() }),
  /** Price per million tokens, keyed "provider/model"; overrides and adds to the built-in table (`builtinPriceFor`). */
  prices: z.record(z.string(), Price).default({}),
  /**
   * Modules of `defineTool` tools (TypeScript or JavaScript; a path relative
   * to the working directory) that every step worker of this deployment
   * loads, beside the ones `rein worker --tools` names. @defaultValue []
   * @example ["./tools.ts"]
   */
  toolModules: z.array(z.string().min(1, "expected a module path")).default([]),
  /**
   * This deployment's build (env `REIN_BUILD_ID`; `rein serve|worker --build-id` wins over both): a
   * controller starts new runs under it, and a step worker takes only the
   * steps of runs started under it, so a rolling upgrade drains old runs on
   * old workers (docs/operations.md). Absent: runs and workers without a build.
   */
  buildId: BuildId.optional(),
  /**
   * Earlier builds whose runs this build's step workers may also take (a
   * patch release that still runs their steps correctly): each named build's
   * step queue gets a consumer of its own, with the same concurrency.
   * @defaultValue []
   */
  compatibleBuilds: z.array(BuildId).default([]),
  tools: z
    .object({
      /** Executables `run_command` may start. */
      commands: z.array(z.string()).default(["node", "npm", "git", "ls", "cat", "grep"]),
      /**
       * `host:port` destinations `http_request` may reach (`*.example.com:443`
       * covers subdomains). A bare host is refused with a suggestion.
       */
      hosts: z.array(HostPortEntry).default([]),
      /** Tool names known to this deployment beyond the built-ins: those of `toolModules` or an embedding program, so submitters accept goals granting them. */
      extra: z.array(z.string()).default([]),
      /** Calls a crash may cut off that the next worker runs again instead of asking a person (docs/effects.md). */
      repeatSafe: z.array(RepeatSafeRule).default([]),
    })
    .default({ commands: ["node", "npm", "git", "ls", "cat", "grep"], hosts: [], extra: [], repeatSafe: [] }),
  /**
   * The boundary around every process a run starts (`run_command`, acceptance
   * checks): `auto` is bubblewrap when it can start here and otherwise refuses
   * to start processes; `none` runs them unconfined, with a warning on every run.
   * @defaultValue "auto"
   */
  sandbox: SandboxMode.default("auto"),
  /** CPU, memory, process-count and file-size limits inside the sandbox. */
  sandboxLimits: SandboxLimits.default(SandboxLimits.parse({})),
  policy: z.array(PolicyRule).default([]),
  approvals: z
    .object({
      ttlSeconds: z
        .number()
        .int()
        .positive()
        .default(24 * 3600),
    })
    .default({ ttlSeconds: 24 * 3600 }),
  packets: z
    .object({
      ttlSeconds: z.number().int().positive().default(3600),
      maxDepth: z.number().int().nonnegative().default(3),
      /** The most steps of one run in flight at once, and children one step waits for; a goal may ask for fewer. */
      maxParallel: z.number().int().positive().default(4),
    })
    .default({ ttlSeconds: 3600, maxDepth: 3, maxParallel: 4 }),
  observations: z
    .object({
      maxBytes: z.number().int().positive().default(16_384),
      maxLines: z.number().int().positive().default(200),
      /** Bytes of each observation's data the judge sees; the untrusted-data preamble is not counted. */
      judgeMaxBytes: z.number().int().positive().default(2_048),
    })
    .default({ maxBytes: 16_384, maxLines: 200, judgeMaxBytes: 2_048 }),
  redaction: z
    .object({
      /** Regular expressions whose matches are replaced by [REDACTED:pii] in observations, traces and logs. */
      patterns: z.array(z.string()).default([]),
    })
    .default({ patterns: [] }),
  /** Live OpenTelemetry spans from every role (docs/observability.md). */
  otel: OtelConfig.default({ enabled: false }),
  /** MCP servers (stdio) whose tools join the registry as `<server>__<tool>`. */
  mcp: McpConfig,
  /**
   * Out-of-process tool plugins (docs/plugins.md): `{ "path": "plugins/tickets", "enabled": true }`,
   * each a directory with a plugin.json. Their tools join the registry under their own names.
   */
  plugins: PluginsConfig,
  /**
   * Secrets from environment variables, each bound to the tools that may read
   * it through `context.secrets` and the `host:port`s `http_request` may send
   * it to: `{ "env": "PAYMENTS_TOKEN", "tools": ["http_request"], "hosts":
   * ["api.example.com:443"] }`. A bare name binds it to nothing. Every value
   * (and every provider's API key) is redacted from observations, traces and
   * logs.
   */
  secrets: z.array(SecretEntry).default([]),
  /** Lock, stall and retry settings of every role's queue; see `QueuesConfig`. */
  queues: QueuesConfig.default(QueuesConfig.parse({})),
  /** How the controller finds and sends again jobs lost from their queues; see `RedriveConfig`. */
  redrive: RedriveConfig.default(RedriveConfig.parse({})),
  /** What the evaluator decides where a rule leaves the choice to the deployment. */
  evaluator: EvaluatorConfig.default(EvaluatorConfig.parse({})),
  retention: RetentionConfig.default(RetentionConfig.parse({})),
});
export type ReinConfig = z.infer<typeof ReinConfig>;
export type ReinConfigInput = z.input<typeof ReinConfig>;

const roleEnv = (role: Role, field: "PROVIDER" | "MODEL") => `REIN_${role.toUpperCase()}_${field}`;

export interface LoadConfigOptions {
  /** A config file; default `rein.config.json` in the working directory when present. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Values that win over file and environment (tests, the CLI's flags). */
  overrides?: ReinConfigInput;
}

/**
 * The sections environment variables are merged into, checked before the
 * merge: a file's `"redis": "…"` is named as the mistake it is, not spread.
 */
const EnvMergedSections = z.object({
  redis: z.record(z.string(), z.unknown(), { error: "expected an object" }).optional(),
  roles: z
    .record(z.string(), z.record(z.string(), z.unknown(), { error: "expected an object: { provider, model, … }" }), {
      error: "expected an object of roles",
    })
    .optional(),
});

/**
 * Loads `rein.config.json` (or `file`), applies environment variables over
 * it, validates, and resolves relative paths against the file's directory.
 * A bad value fails with the key that holds it.
 */
export function loadConfig(options: LoadConfigOptions = {}): ReinConfig {
  const env = options.env ?? process.env;
  const file = options.file ?? (existsSync("rein.config.json") ? "rein.config.json" : undefined);
  let fromFile: Record<string, unknown> = {};
  let baseDir = process.cwd();
  if (file) {
    baseDir = dirname(resolve(file));
    fromFile = readConfigFile(file);
  }
  refuseUnknownKeys(options.overrides ?? {}, "the overrides");
  const merged: Record<string, unknown> = { ...fromFile, ...(options.overrides ?? {}) };
  const sections = EnvMergedSections.safeParse(merged);
  if (!sections.success) {
    const issue = sections.error.issues[0];
    throw configError(issue?.path.join(".") || "(root)", issue?.message ?? "invalid", sections.error);
  }
  const redisUrl = redisUrlNamedBy(env);
  if (redisUrl) merged.redisUrl = redisUrl;
  if (env.REIN_REDIS_CLUSTER)
    merged.redis = { ...sections.data.redis, cluster: env.REIN_REDIS_CLUSTER.split(",").map((url) => url.trim()) };
  if (env.REIN_PREFIX) merged.prefix = env.REIN_PREFIX;
  if (env.REIN_WORKSPACE_ROOT) merged.workspaceRoot = env.REIN_WORKSPACE_ROOT;
  if (env.REIN_KEYS_DIR) merged.keysDir = env.REIN_KEYS_DIR;
  if (env.REIN_BUILD_ID && options.overrides?.buildId === undefined) merged.buildId = env.REIN_BUILD_ID;
  const roles = { ...sections.data.roles };
  for (const role of Role.options) {
    const provider = env[roleEnv(role, "PROVIDER")];
    const model = env[roleEnv(role, "MODEL")];
    if (provider || model) {
      roles[role] = { ...(roles[role] ?? {}), ...(provider ? { provider } : {}), ...(model ? { model } : {}) };
      if (!roles[role]?.model)
        throw configError(`roles.${role}.model`, `${roleEnv(role, "MODEL")} must be set with ${roleEnv(role, "PROVIDER")}`);
    }
  }
  if (Object.keys(roles).length > 0) merged.roles = roles;

  const parsed = ReinConfig.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw configError(issue?.path.join(".") || "(root)", issue?.message ?? "invalid", parsed.error);
  }
  const config = parsed.data;
  // The evaluator's model calls are its judge's: a config that names only an
  // evaluator model means that model judges.
  if (roles.judge === undefined) config.roles.judge = { ...config.roles.evaluator };
  config.workspaceRoot = resolve(baseDir, config.workspaceRoot);
  config.keysDir = resolve(baseDir, config.keysDir);
  if (config.seedsRoot !== undefined) config.seedsRoot = resolve(baseDir, config.seedsRoot);
  for (const plugin of config.plugins) plugin.path = resolve(baseDir, plugin.path);
  for (const server of config.mcp) {
    server.mounts = server.mounts.map((mount) => ({ ...mount, path: resolve(baseDir, mount.path) }));
    if (server.cwd !== undefined) server.cwd = resolve(baseDir, server.cwd);
  }
  for (const provider of Object.values(config.providers)) {
    if (provider.script) provider.script = resolve(baseDir, provider.script);
  }
  baseUrlsFromEnv(config, env);
  validateProviders(config);
  validateRoles(config);
  return config;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    throw new ReinError(
      "config_invalid",
      missing ? `config file ${file} does not exist` : `cannot read config file ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const at = jsonErrorLocation(text, error);
    const where = at ? ` at line ${at.line}, column ${at.column}` : "";
    throw new ReinError(
      "config_invalid",
      `config file ${file} is not valid JSON${where} (${(error as Error).message}); expected valid JSON`,
      { cause: error, details: { ...at } },
    );
  }
  const settings = JsonObject.safeParse(value);
  if (!settings.success) throw new ReinError("config_invalid", `config file ${file}: expected a JSON object of settings`);
  refuseUnknownKeys(settings.data, file);
  return settings.data;
}

/** Settings from `where` (a file, a program's overrides) with a key the schema lacks are refused, naming the nearest known one. */
function refuseUnknownKeys(settings: Record<string, unknown>, where: string): void {
  const unknown = unknownKeys(ReinConfig, settings);
  const [first] = unknown;
  if (!first) return;
  const listed = unknown.map((key) => `${key.path}${key.suggestion ? ` (did you mean "${key.suggestion}"?)` : ""}`).join(", ");
  throw configError(first.path, `${where} has keys Rein does not know: ${listed}; \`rein config schema\` prints every key it does`);
}

/** The SDKs' own variables, applied where the config names no base URL, so \`rein models\` shows what is used. */
function baseUrlsFromEnv(config: ReinConfig, env: NodeJS.ProcessEnv): void {
  for (const provider of Object.values(config.providers)) {
    if (provider.baseURL) continue;
    const fromEnv =
      provider.kind === "anthropic"
        ? env.ANTHROPIC_BASE_URL
        : provider.kind === "openai" || provider.kind === "openai-compatible"
          ? env.OPENAI_BASE_URL
          : undefined;
    if (fromEnv) provider.baseURL = fromEnv;
  }
}

/** Settings a provider's kind cannot work without. */
function validateProviders(config: ReinConfig): void {
  for (const [name, provider] of Object.entries(config.providers)) {
    if (provider.kind === "openai-compatible" && !provider.baseURL) {
      throw configError(
        `providers.${name}.baseURL`,
        `provider "${name}" is openai-compatible and needs the server's base URL, e.g. "http://127.0.0.1:11434/v1" (or set OPENAI_BASE_URL)`,
      );
    }
  }
}

/** Every role must name a configured provider. */
export function validateRoles(config: ReinConfig): void {
  for (const role of Role.options) {
    const choice = config.roles[role];
    if (!config.providers[choice.provider]) {
      throw configError(
        `roles.${role}.provider`,
        `role ${role} names provider "${choice.provider}", which is not configured; expected one of: ${Object.keys(config.providers).join(", ")}`,
      );
    }
  }
}

function configError(key: string, message: string, cause?: unknown): ReinError {
  return new ReinError("config_invalid", `config key ${key}: ${message}`, { cause, details: { key } });
}
