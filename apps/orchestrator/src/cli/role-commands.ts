import { BuildId, ReinError } from "@rein/contracts";
import { redactPassword } from "@rein/runtime";
import { approvalKeys, requireVerifier } from "../approvals/approval-keys.ts";
import { checkModelsAtStart, claimQueueShards, intakeEvents, startRoles, type RoleName, ROLE_NAMES, buildTooling } from "@rein/controller";
import { contextFlags, openContext, warnIfUnsandboxed } from "./cli-context.ts";
import type { CommandHandler, ParsedFlags } from "./command-spec.ts";
import type { SERVE, WORKER } from "./command-specs.ts";
import { packetSigningKeys } from "./packet-signing-keys.ts";
import { err } from "./output.ts";
import { serveHttp } from "./serve-http.ts";
import { loadToolModules } from "./tool-modules.ts";
import { serveProcessMetrics } from "../metrics/process-metrics-server.ts";

/** The flags every role process takes: serve's and worker's in common, and serve's HTTP ones when present. */
type RoleFlags = ParsedFlags<typeof WORKER> & ParsedFlags<typeof SERVE>;

/** Runs roles until SIGTERM or SIGINT, then stops taking jobs, lets current ones finish, and exits 0. */
async function runRoles(roles: readonly RoleName[], flags: RoleFlags): Promise<number> {
  const { concurrency } = flags;
  const buildId = flags["build-id"];
  const invalidBuild = buildId === undefined ? undefined : BuildId.safeParse(buildId).error;
  if (invalidBuild) throw new ReinError("config_invalid", `--build-id ${JSON.stringify(buildId)}: ${invalidBuild.issues[0]?.message}`);
  const context = await openContext({
    ...contextFlags(flags),
    logLevel: "info",
    ...(buildId === undefined ? {} : { overrides: { buildId } }),
  });
  const refused = async (error: unknown) => {
    await context.close();
    throw error;
  };
  await checkModelsAtStart(context.config, { roles, warn: err }).catch(refused);
  await claimQueueShards(context.runtime).catch(refused);
  // A controller makes the pair once when there is none; a step worker only ever reads the public key.
  warnIfUnsandboxed(context.config);
  const keys = packetSigningKeys(context.config, { create: roles.includes("control") });
  if (keys.created)
    err(`rein: wrote a packet-signing key pair to ${context.config.keysDir} (step workers elsewhere need packet-public.pem)`);
  if (roles.includes("control") && !keys.privateKey) {
    throw new ReinError(
      "config_invalid",
      `the controller needs the packet private key: ${context.config.keysDir}/packet-private.pem or REIN_PACKET_PRIVATE_KEY (or _FILE); create a pair with \`rein keys generate\``,
    );
  }
  if (roles.includes("step") && !keys.publicKey) {
    throw new ReinError(
      "config_invalid",
      `a step worker needs the controller's public key: ${context.config.keysDir}/packet-public.pem or REIN_PACKET_PUBLIC_KEY (or _FILE)`,
    );
  }
  // A step worker checks approvals with the public key only; it never holds the key that makes them.
  const approvalVerifier = roles.includes("step") ? requireVerifier(approvalKeys(context.config), context.config) : undefined;
  const modules = [...context.config.toolModules, ...(flags.tools ?? [])];
  if (flags.tools !== undefined && !roles.includes("step"))
    throw new ReinError("config_invalid", "--tools gives step workers their tools; expected it with --role step");
  const userTools = approvalVerifier && modules.length > 0 ? await loadToolModules(modules) : [];
  const tooling = approvalVerifier ? await buildTooling(context.runtime, userTools, approvalVerifier) : undefined;
  const carried = userTools.map((tool) => tool.name);
  const stalled = lockTiming(flags["lock-ms"]);
  // Listening (or failing to) before any role takes a job.
  const api =
    flags.http === undefined
      ? undefined
      : await serveHttp(context, {
          port: flags.http,
          host: flags.host,
          tokenEnv: flags["token-env"],
          tokensFile: flags["tokens-file"],
          allowOrigins: flags["allow-origin"],
          roles,
          // The controller's process takes a new run in itself: one control job fewer per run.
          intake: roles.includes("control") && keys.privateKey ? intakeEvents(context.runtime, keys.privateKey) : undefined,
        });
  const metrics =
    flags["metrics-port"] === undefined
      ? undefined
      : await serveProcessMetrics({ port: flags["metrics-port"], host: flags["metrics-host"], roles });
  if (metrics) err(`rein: this process's metrics on ${metrics.url}`);
  const running = startRoles(context.runtime, {
    roles,
    stalled,
    packetPrivateKey: keys.privateKey,
    packetPublicKey: keys.publicKey,
    executor: tooling?.executor,
    moduleTools: carried,
    concurrency,
  });
  // Listening before saying so: whoever waits for this line may signal at once.
  const stop = new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  const build = context.config.buildId === undefined ? "" : `, build ${context.config.buildId}`;
  err(
    `rein: ${roles.join(", ")} running against ${redactPassword(context.config.redisUrl)} (prefix ${context.config.prefix}${build}); SIGTERM to stop`,
  );
  if (carried.length > 0) err(`rein: the step worker carries your tools ${carried.join(", ")}; goals may grant them while it runs`);
  await stop;
  err("rein: stopping: finishing current jobs");
  api?.closeAllConnections();
  api?.close();
  metrics?.server.closeAllConnections();
  metrics?.server.close();
  await running.close(flags["grace-ms"]);
  await tooling?.close();
  await context.close();
  return 0;
}

/**
 * `--lock-ms`: how long a job's lock lasts without renewal, and so how soon a
 * killed process's jobs go back to the queue (checked at the same interval).
 * BullMQ's default is 30 s; shorter recovers faster and renews more often.
 */
function lockTiming(lockMs: number | undefined): { lockDuration: number; stalledInterval: number } | undefined {
  return lockMs === undefined ? undefined : { lockDuration: lockMs, stalledInterval: lockMs };
}

export const serveCommand: CommandHandler<typeof SERVE> = (_args, flags) => {
  const stray = (["host", "token-env", "tokens-file", "allow-origin"] as const).filter((name) => flags[name] !== undefined);
  if (flags.http === undefined && stray.length > 0) {
    throw new ReinError("config_invalid", `--${stray[0]} configures the HTTP API; expected it with --http PORT`);
  }
  return runRoles(["control"], flags);
};

export const workerCommand: CommandHandler<typeof WORKER> = (_args, flags) => {
  const roles = flags.role ?? [];
  if (roles.length === 0) throw new ReinError("config_invalid", `--role (missing): expected one of ${ROLE_NAMES.join(", ")}`);
  if (flags["metrics-host"] !== undefined && flags["metrics-port"] === undefined)
    throw new ReinError("config_invalid", "--metrics-host configures the metrics endpoint; expected it with --metrics-port PORT");
  return runRoles(roles, flags);
};
