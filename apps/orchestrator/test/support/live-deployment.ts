import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunState } from "@rein/contracts/run";
import { ensureKeyPairFiles } from "@rein/signing";
import { connectRedis, createRuntime, ReinConfig, type ReinRuntime } from "@rein/runtime";
import { deleteByPrefix } from "@rein/runtime/keys";
import { TEST_REDIS_URL } from "@rein/runtime/testing";
import { REIN_BIN } from "./cli.ts";

const EXAMPLES = resolve(import.meta.dirname, "../../../../examples");
/** What `rein serve` and `rein worker` print once their consumers listen. */
const READY = / running against /;
const SCRIPTED = { provider: "scripted", model: "scripted-1" };

/** One `rein serve` or `rein worker` process of the deployment. */
export interface RoleProcess {
  name: string;
  child: ChildProcess;
  /** Everything it printed so far, for a failing test's message. */
  output(): string;
}

export interface LiveDeploymentOptions {
  /** The roles each `rein worker` process runs, one process per entry. */
  workers: readonly (readonly string[])[];
  /** Extra config (e.g. `otel`), merged over the example's. */
  config?: Record<string, unknown>;
  /** Extra environment for every process (e.g. OTEL_EXPORTER_OTLP_ENDPOINT). Each process's OTEL_SERVICE_NAME is `rein-<its roles>`. */
  env?: Record<string, string>;
}

/**
 * Rein deployed as an operator runs it: `rein serve --http` (controller, API
 * and dashboard) and `rein worker` processes on one config, on the shared
 * test Redis under a private key prefix. Every role plays
 * examples/sre-triage-plugin offline: the scripted models and the
 * incident-python plugin's tools (`restart_service` needs an approval).
 * The test's own runtime reads states and traces.
 */
export class LiveDeployment {
  readonly processes: RoleProcess[] = [];

  private constructor(
    readonly dir: string,
    readonly prefix: string,
    readonly token: string,
    readonly runtime: ReinRuntime,
    readonly base: string,
  ) {}

  static async start(options: LiveDeploymentOptions): Promise<LiveDeployment> {
    const dir = await mkdtemp(join(tmpdir(), "rein-live-"));
    const prefix = `rein-test-live-${randomBytes(5).toString("hex")}`;
    const token = randomBytes(24).toString("base64url");
    const keysDir = join(dir, "keys");
    // Made before any process starts: a step worker only reads the public halves.
    ensureKeyPairFiles(keysDir, "packet");
    ensureKeyPairFiles(keysDir, "approval");
    const config = {
      plugins: [{ path: join(EXAMPLES, "plugins/incident-python"), enabled: true }],
      providers: { scripted: { kind: "scripted", script: join(EXAMPLES, "sre-triage-plugin/script.json") } },
      roles: { planner: SCRIPTED, worker: SCRIPTED, evaluator: SCRIPTED, judge: SCRIPTED },
      ...options.config,
    };
    const configFile = join(dir, "rein.config.json");
    await writeFile(configFile, JSON.stringify(config, null, 2));
    const env: NodeJS.ProcessEnv = {
      ...withoutProviderKeys(process.env),
      REDIS_URL: TEST_REDIS_URL,
      REIN_PREFIX: prefix,
      REIN_WORKSPACE_ROOT: join(dir, "workspaces"),
      REIN_KEYS_DIR: keysDir,
      REIN_LOG_LEVEL: "warn",
      REIN_E2E_TOKEN: token,
      ...options.env,
    };
    const runtime = createRuntime(
      ReinConfig.parse({ ...config, redisUrl: TEST_REDIS_URL, prefix, workspaceRoot: env.REIN_WORKSPACE_ROOT, keysDir }),
      {
        logDestination: { write: () => true },
      },
    );
    const started: RoleProcess[] = [];
    try {
      const server = spawnRole("serve", ["serve", "--http", "0", "--token-env", "REIN_E2E_TOKEN", "--config", configFile], env);
      started.push(server.role);
      const printed = await server.ready;
      const base = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(printed)?.[1];
      if (!base) throw new Error(`rein serve printed no dashboard URL:\n${printed}`);
      for (const roles of options.workers) {
        const worker = spawnRole(roles.join("+"), ["worker", ...roles.flatMap((role) => ["--role", role]), "--config", configFile], env);
        started.push(worker.role);
        await worker.ready;
      }
      const deployment = new LiveDeployment(dir, prefix, token, runtime, base);
      deployment.processes.push(...started);
      return deployment;
    } catch (error) {
      await stopAll(started);
      await runtime.close();
      throw error;
    }
  }

  /** The dashboard URL `rein serve` prints: the token in the fragment, which never reaches the server. */
  get dashboardUrl(): string {
    return `${this.base}/#token=${this.token}`;
  }

  /** A call to the API with the deployment's token, as a client (not the page) makes it. */
  async api<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await fetch(`${this.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
    });
    const body = (await response.json()) as T;
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path} answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  }

  /** Submits examples/sre-triage-plugin's goal through the API and returns its run id. */
  async submitSreTriage(): Promise<string> {
    const goal = (await import(join(EXAMPLES, "sre-triage-plugin/goal.json"), { with: { type: "json" } })).default as Record<
      string,
      unknown
    >;
    return (await this.api<{ runId: string }>("/runs", { method: "POST", body: JSON.stringify(goal) })).runId;
  }

  /** Resolves with the run's state once `accept` holds of it; fails with every process's output after `timeoutMs`. */
  async waitFor(runId: string, accept: (state: RunState) => boolean, timeoutMs = 90_000): Promise<RunState> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await this.runtime.runs.get(runId);
      if (state && accept(state)) return state;
      if (Date.now() > deadline)
        throw new Error(`run ${runId} is ${state?.status ?? "missing"} after ${timeoutMs} ms; the processes said:\n${this.outputs()}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  }

  outputs(): string {
    return this.processes.map((role) => `--- ${role.name}\n${role.output()}`).join("\n");
  }

  /** SIGTERMs every process, waits for each to exit, then deletes the prefix's keys and the directory. */
  async stop(): Promise<void> {
    await stopAll(this.processes);
    await this.runtime.close();
    const redis = connectRedis(TEST_REDIS_URL);
    await deleteByPrefix(redis, this.prefix);
    redis.disconnect();
    await rm(this.dir, { recursive: true, force: true });
  }
}

function withoutProviderKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { ANTHROPIC_API_KEY: _anthropic, OPENAI_API_KEY: _openai, ...rest } = env;
  return rest;
}

function spawnRole(name: string, args: string[], env: NodeJS.ProcessEnv): { role: RoleProcess; ready: Promise<string> } {
  // Each process its own service, so exported spans say which process sent them.
  const child = spawn(process.execPath, [REIN_BIN, ...args], {
    env: { ...env, OTEL_SERVICE_NAME: `rein-${name}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  const collect = (chunk: Buffer) => {
    printed = (printed + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const ready = new Promise<string>((resolveReady, reject) => {
    child.stderr?.on("data", () => {
      if (READY.test(printed)) resolveReady(printed);
    });
    child.once("exit", (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${printed}`)));
  });
  ready.catch(() => undefined);
  return { role: { name, child, output: () => printed }, ready };
}

async function stopAll(processes: readonly RoleProcess[]): Promise<void> {
  await Promise.all(
    processes.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }),
  );
}
