import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectRedis, createRuntime, ReinConfig, type ReinRuntime } from "@rein/runtime";
import { deleteByPrefix } from "@rein/runtime/keys";
import { TEST_REDIS_URL } from "@rein/runtime/testing";
import { afterAll } from "vitest";

export const REIN_BIN = resolve(import.meta.dirname, "../../bin/rein.js");

/** An environment for CLI children: the test Redis, a private prefix and workspace root. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // Without a provider key, `rein run --example` plays the example's offline models, as these tests expect.
  const { ANTHROPIC_API_KEY: _anthropic, OPENAI_API_KEY: _openai, ...inherited } = process.env;
  return {
    ...inherited,
    REDIS_URL: TEST_REDIS_URL,
    REIN_PREFIX: `rein-test-cli-${randomBytes(5).toString("hex")}`,
    REIN_WORKSPACE_ROOT: mkdtempSync(join(tmpdir(), "rein-cli-ws-")),
    REIN_KEYS_DIR: mkdtempSync(join(tmpdir(), "rein-cli-keys-")),
    REIN_LOG_LEVEL: "silent",
    ...extra,
  };
}

/** Prefixes a test file's CLI children used: every key under them is deleted after the file's tests. */
export function prefixesCleanedAfterAll(): string[] {
  const prefixes: string[] = [];
  afterAll(async () => {
    const redis = connectRedis(TEST_REDIS_URL);
    for (const prefix of prefixes) await deleteByPrefix(redis, prefix);
    redis.disconnect();
  });
  return prefixes;
}

/**
 * Runtimes on CLI children's prefixes, to read what the children wrote:
 * `runtimeFor(env)` opens one; after the file's tests every key under their
 * prefixes is deleted and they are closed.
 */
export function cliRuntimesClosedAfterAll(): (env: NodeJS.ProcessEnv) => ReinRuntime {
  const runtimes: ReinRuntime[] = [];
  afterAll(async () => {
    for (const runtime of runtimes) {
      await deleteByPrefix(runtime.redis, runtime.config.prefix);
      await runtime.close();
    }
  });
  return (env) => {
    const runtime = createRuntime(
      ReinConfig.parse({ redisUrl: env.REDIS_URL, prefix: env.REIN_PREFIX, workspaceRoot: env.REIN_WORKSPACE_ROOT }),
    );
    runtimes.push(runtime);
    return runtime;
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function startRein(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [REIN_BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolveDone) => child.once("close", (code) => resolveDone({ code, stdout, stderr })));
  return { child, done };
}

export const rein = (args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> => startRein(args, env).done;
