import { redactPassword, ReinError } from "@rein/core";
import { approvalKeys, requireVerifier } from "../approvals/approval-keys.ts";
import { startRoles, type RoleName, ROLE_NAMES } from "../roles/start-roles.ts";
import { buildTooling } from "../roles/tooling.ts";
import { contextFlags, openContext, warnIfUnsandboxed } from "./cli-context.ts";
import type { Command } from "./commands.ts";
import { processKeys } from "./keys.ts";
import { err } from "./output.ts";
import { type ServeHttpFlags, serveHttp } from "./serve-http.ts";

/** Runs roles until SIGTERM or SIGINT, then stops taking jobs, lets current ones finish, and exits 0. */
async function runRoles(roles: readonly RoleName[], flags: Record<string, unknown>): Promise<number> {
  const concurrency = flags.concurrency === undefined ? undefined : Number(flags.concurrency);
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
    throw new ReinError("config_invalid", `--concurrency ${String(flags.concurrency)}: expected a whole number of at least 1`);
  }
  const context = await openContext({ ...contextFlags(flags), logLevel: "info" });
  // A controller makes the pair once when there is none; a step worker only ever reads the public key.
  warnIfUnsandboxed(context.config);
  const keys = processKeys(context.config, { create: roles.includes("control") });
  if (keys.created) err(`rein: wrote a packet-signing key pair to ${context.config.keysDir} (step workers elsewhere need packet-public.pem)`);
  if (roles.includes("control") && !keys.privateKey) {
    throw new ReinError("config_invalid", `the controller needs the packet private key: ${context.config.keysDir}/packet-private.pem or REIN_PACKET_PRIVATE_KEY (or _FILE); create a pair with \`rein keys generate\``);
  }
  if (roles.includes("step") && !keys.publicKey) {
    throw new ReinError(
      "config_invalid",
      `a step worker needs the controller's public key: ${context.config.keysDir}/packet-public.pem or REIN_PACKET_PUBLIC_KEY (or _FILE)`,
    );
  }
  // A step worker checks approvals with the public key only; it never holds the key that makes them.
  const approvalVerifier = roles.includes("step") ? requireVerifier(approvalKeys(context.config), context.config) : undefined;
  const tooling = approvalVerifier ? await buildTooling(context.runtime, [], approvalVerifier) : undefined;
  const stalled = lockTiming(flags);
  // Listening (or failing to) before any role takes a job.
  const api = flags.http === undefined ? undefined : await serveHttp(context, httpFlags(flags));
  const running = startRoles(context.runtime, {
    roles,
    stalled,
    packetPrivateKey: keys.privateKey,
    packetPublicKey: keys.publicKey,
    executor: tooling?.executor,
    concurrency,
  });
  // Listening before saying so: whoever waits for this line may signal at once.
  const stop = new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  err(`rein: ${roles.join(", ")} running against ${redactPassword(context.config.redisUrl)} (prefix ${context.config.prefix}); SIGTERM to stop`);
  await stop;
  err("rein: stopping: finishing current jobs");
  api?.closeAllConnections();
  api?.close();
  await running.close(graceMs(flags));
  await tooling?.close();
  await context.close();
  return 0;
}

/**
 * `--lock-ms`: how long a job's lock lasts without renewal, and so how soon a
 * killed process's jobs go back to the queue (checked at the same interval).
 * BullMQ's default is 30 s; shorter recovers faster and renews more often.
 */
function lockTiming(flags: Record<string, unknown>): { lockDuration: number; stalledInterval: number } | undefined {
  if (flags["lock-ms"] === undefined) return undefined;
  const lock = Number(flags["lock-ms"]);
  if (!Number.isInteger(lock) || lock < 1_000) throw new ReinError("config_invalid", `--lock-ms ${String(flags["lock-ms"])}: expected milliseconds, at least 1000`);
  return { lockDuration: lock, stalledInterval: lock };
}

function graceMs(flags: Record<string, unknown>): number | undefined {
  if (flags["grace-ms"] === undefined) return undefined;
  const grace = Number(flags["grace-ms"]);
  if (!Number.isInteger(grace) || grace < 0) throw new ReinError("config_invalid", `--grace-ms ${String(flags["grace-ms"])}: expected milliseconds`);
  return grace;
}

/** The HTTP flags of `rein serve`; they mean nothing without `--http`. */
function httpFlags(flags: Record<string, unknown>): ServeHttpFlags {
  return {
    port: String(flags.http),
    host: flags.host as string | undefined,
    tokenEnv: flags["token-env"] as string | undefined,
    allowOrigins: flags["allow-origin"] as string[] | undefined,
  };
}

export const serveCommand: Command = {
  name: "serve",
  usage: "serve [--http PORT [--host ADDRESS] [--token-env NAME] [--allow-origin ORIGIN]...] [--concurrency N]",
  summary: "run the controller (consumes the control queue), optionally with the HTTP API (always behind a bearer token)",
  options: {
    concurrency: { type: "string" },
    http: { type: "string" },
    host: { type: "string" },
    "token-env": { type: "string" },
    "allow-origin": { type: "string", multiple: true },
    "grace-ms": { type: "string" },
    "lock-ms": { type: "string" },
  },
  run: (_positionals, flags) => {
    const stray = ["host", "token-env", "allow-origin"].filter((name) => flags[name] !== undefined);
    if (flags.http === undefined && stray.length > 0) {
      throw new ReinError("config_invalid", `--${stray[0]} configures the HTTP API; expected it with --http PORT`);
    }
    return runRoles(["control"], flags);
  },
};

export const workerCommand: Command = {
  name: "worker",
  usage: "worker --role plan|step|evaluate|control [--concurrency N] [--grace-ms MS] [--lock-ms MS]",
  summary: "run one role's consumer; start as many as you need, on any machine",
  options: { role: { type: "string", multiple: true }, concurrency: { type: "string" }, "grace-ms": { type: "string" }, "lock-ms": { type: "string" } },
  run: (_positionals, flags) => {
    const roles = (flags.role as string[] | undefined) ?? [];
    const unknown = roles.filter((role) => !ROLE_NAMES.includes(role as RoleName));
    if (roles.length === 0 || unknown.length > 0) {
      throw new ReinError("config_invalid", `--role ${unknown.join(", ") || "(missing)"}: expected one of ${ROLE_NAMES.join(", ")}`);
    }
    return runRoles(roles as RoleName[], flags);
  },
};
