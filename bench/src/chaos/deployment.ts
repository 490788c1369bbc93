import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureKeyPairFiles } from "@rein/signing";
import type { ModelScriptInput } from "@rein/models";
import { createRuntime, ReinConfig, type ReinRuntime } from "@rein/runtime";
import { PrivateRedis } from "./private-redis.ts";
import { type RoleProcess, spawnRole } from "./role-process.ts";
import { TcpProxy } from "./tcp-proxy.ts";
import { REDIS_WAIT_MS, within } from "./within.ts";

export interface DeploymentOptions {
  /** Lock duration and stall interval of every role (`--lock-ms`). */
  lockMs: number;
  /** Steps each step-worker process runs at once. */
  stepConcurrency: number;
  /** `--grace-ms` of step workers: how long a SIGTERMed one lets its steps finish. */
  graceMs: number;
  script: ModelScriptInput;
  config: (paths: { workspaceRoot: string; keysDir: string; script: string }, prefix: string) => Record<string, unknown>;
}

/**
 * Rein deployed as an operator would on one machine: a private Redis with
 * AOF, `rein serve` and `rein worker` processes reading one config file,
 * and a TCP proxy in front of Redis for the processes the suite may cut off.
 * The suite's own runtime submits goals and reads states.
 */
export class Deployment {
  readonly processes: RoleProcess[] = [];
  #stepWorkers = 0;

  private constructor(
    readonly dir: string,
    readonly redis: PrivateRedis,
    readonly proxy: TcpProxy,
    readonly runtime: ReinRuntime,
    private readonly configFile: string,
    private readonly options: DeploymentOptions,
  ) {}

  static async start(options: DeploymentOptions): Promise<Deployment> {
    const dir = await mkdtemp(join(tmpdir(), "rein-chaos-"));
    const paths = { workspaceRoot: join(dir, "workspaces"), keysDir: join(dir, "keys"), script: join(dir, "script.json") };
    await mkdir(paths.workspaceRoot);
    await mkdir(join(dir, "logs"));
    // Made before any process starts: a step worker only reads the public halves.
    ensureKeyPairFiles(paths.keysDir, "packet");
    ensureKeyPairFiles(paths.keysDir, "approval");
    await writeFile(paths.script, JSON.stringify(options.script));
    const prefix = `chaos-${randomBytes(3).toString("hex")}`;
    const configFile = join(dir, "rein.config.json");
    const config = options.config(paths, prefix);
    await writeFile(configFile, JSON.stringify(config, null, 2));
    const redis = await PrivateRedis.start();
    const proxy = await TcpProxy.start(redis.port);
    // The suite submits with the deployment's own config, so it knows the same tools (the wait plugin's included).
    const runtime = createRuntime(ReinConfig.parse({ ...config, redisUrl: redis.url }), { logDestination: devNull() });
    return new Deployment(dir, redis, proxy, runtime, configFile, options);
  }

  get logDir(): string {
    return join(this.dir, "logs");
  }

  async startController(name = "control"): Promise<RoleProcess> {
    return this.#spawn(name, ["serve", "--lock-ms", String(this.options.lockMs)], this.redis.url);
  }

  /**
   * `rein serve --http` on a free port, its token from `tokenEnv`: the
   * controller with the HTTP API, where a goal is taken in as `POST /runs`
   * takes it. Resolves with the process and the API's base URL.
   */
  async startControllerWithApi(token: string, name = "control"): Promise<{ role: RoleProcess; url: string }> {
    const role = await this.#spawn(
      name,
      ["serve", "--lock-ms", String(this.options.lockMs), "--http", "0", "--token-env", API_TOKEN_ENV],
      this.redis.url,
      { [API_TOKEN_ENV]: token },
    );
    return { role, url: await apiUrlOf(join(this.logDir, `${name}.log`)) };
  }

  async startPlanAndEvaluate(name = "plan-evaluate"): Promise<RoleProcess> {
    return this.#spawn(name, ["worker", "--role", "plan", "--role", "evaluate", "--lock-ms", String(this.options.lockMs)], this.redis.url);
  }

  /** A step worker, connected directly or through the suite's proxy. */
  async startStepWorker(via: "direct" | "proxy" = "direct"): Promise<RoleProcess> {
    this.#stepWorkers += 1;
    const args = [
      "worker",
      "--role",
      "step",
      "--concurrency",
      String(this.options.stepConcurrency),
      "--lock-ms",
      String(this.options.lockMs),
      "--grace-ms",
      String(this.options.graceMs),
    ];
    return this.#spawn(
      `step-${this.#stepWorkers}${via === "proxy" ? "-proxied" : ""}`,
      args,
      via === "proxy" ? this.proxy.url : this.redis.url,
    );
  }

  /**
   * Stops every process (SIGTERM, SIGKILL past its grace), then the suite's
   * runtime, the proxy and Redis, each wait bounded. Everything is stopped
   * even when something hangs; what had to be forced is returned, and what
   * could not be stopped at all is thrown after the rest is down.
   */
  async stop(): Promise<string[]> {
    const exits = await Promise.allSettled(this.processes.map((role) => role.signal("SIGTERM")));
    const forced = this.processes
      .filter((_, index) => {
        const exit = exits[index];
        return exit?.status === "fulfilled" && exit.value.forced;
      })
      .map((role) => `${role.name} did not exit within its grace after SIGTERM and was SIGKILLed`);
    const steps = await Promise.allSettled([
      within("closing the suite's Redis connections", REDIS_WAIT_MS, this.runtime.close()),
      within("closing the TCP proxy", REDIS_WAIT_MS, this.proxy.close()),
    ]);
    const stopped = await Promise.allSettled([this.redis.stop()]);
    const failures = [...exits, ...steps, ...stopped].filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    if (failures.length > 0) throw new Error(failures.map((failure) => (failure.reason as Error).message).join("; "));
    return forced;
  }

  async #spawn(name: string, args: string[], redisUrl: string, env: Record<string, string> = {}): Promise<RoleProcess> {
    const role = spawnRole(name, [...args, "--config", this.configFile, "--redis", redisUrl], {
      logDir: this.logDir,
      env: { REIN_LOG_LEVEL: "warn", REIN_KEYS_DIR: join(this.dir, "keys"), ...env },
    });
    this.processes.push(role);
    await role.ready;
    return role;
  }
}

const API_TOKEN_ENV = "REIN_BENCH_API_TOKEN";

/** The base URL `rein serve --http` printed to its log before saying it runs (the log is written a moment behind). */
async function apiUrlOf(logFile: string): Promise<string> {
  const deadline = Date.now() + REDIS_WAIT_MS;
  for (;;) {
    const printed = /HTTP API on (http:\/\/\S+) /.exec(await readFile(logFile, "utf8").catch(() => ""));
    if (printed?.[1]) return printed[1];
    if (Date.now() > deadline) throw new Error(`chaos: ${logFile} names no HTTP API address`);
    await delay(50);
  }
}

/** The suite's runtime logs nothing: its summary is what it prints. */
function devNull(): { write(chunk: string): boolean } {
  return { write: () => true };
}
