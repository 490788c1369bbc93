import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "@rein/runtime";
import { AnthropicMessagesEmulator, type FakeReply, FakeServer } from "@rein/models/testing";
import { providerForRole } from "@rein/controller";
import { RedisRateLimiter } from "@rein/runtime";
import { cliEnv, cliRuntimesClosedAfterAll, prefixesCleanedAfterAll, rein } from "./support/cli.ts";

const keys = { CLAUDE_KEY: "sk-ant-MODELS-CANARY-1f2e3d", GPT_KEY: "sk-proj-MODELS-CANARY-9a8b7c" };

/** A rein.config.json; only `roles.worker.provider` and `.model` differ between the two versions. */
const configWith = (worker: { provider: string; model: string }) => ({
  providers: {
    claude: { kind: "anthropic", apiKeyEnv: "CLAUDE_KEY" },
    gpt: { kind: "openai", apiKeyEnv: "GPT_KEY" },
    local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" },
  },
  roles: {
    planner: { provider: "claude", model: "claude-sonnet-5-5" },
    worker,
    evaluator: { provider: "local", model: "qwen2.5:7b" },
    judge: { provider: "local", model: "qwen2.5:7b" },
  },
});

const tableRows = (stdout: string) => stdout.split("\n").filter((line) => /^(planner|worker|evaluator|judge)\s/.test(line));

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rein-models-"));
  file = join(dir, "rein.config.json");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("swapping a role's provider is a config change only", () => {
  it("shows the swap in `rein models` and builds the other provider for the role", async () => {
    await writeFile(file, JSON.stringify(configWith({ provider: "gpt", model: "gpt-6.2-sol" })));
    const before = await rein(["models", "--config", file], cliEnv(keys));
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toMatch(/^worker\s+gpt\s+openai\s+gpt-6\.2-sol$/m);
    expect(before.stdout).toMatch(/^planner\s+claude\s+anthropic\s+claude-sonnet-5-5$/m);
    const first = providerForRole(loadConfig({ file, env: {} }), "worker", keys);
    expect([first.name, first.kind, first.model]).toEqual(["gpt", "openai", "gpt-6.2-sol"]);

    await writeFile(file, JSON.stringify(configWith({ provider: "local", model: "llama3.1:8b" })));
    const after = await rein(["models", "--config", file], cliEnv(keys));
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/^worker\s+local\s+openai-compatible\s+llama3\.1:8b\s+http:\/\/127\.0\.0\.1:11434\/v1$/m);
    // Nothing else moved.
    expect(tableRows(after.stdout).filter((row) => !row.startsWith("worker"))).toEqual(
      tableRows(before.stdout).filter((row) => !row.startsWith("worker")),
    );
    const second = providerForRole(loadConfig({ file, env: {} }), "worker", keys);
    expect([second.name, second.kind, second.model]).toEqual(["local", "openai-compatible", "llama3.1:8b"]);

    for (const output of [before, after]) expect(output.stdout + output.stderr).not.toContain("MODELS-CANARY");
  }, 60_000);

  it("lets the environment swap it too, over the file", async () => {
    await writeFile(file, JSON.stringify(configWith({ provider: "gpt", model: "gpt-6.2-sol" })));
    const result = await rein(
      ["models", "--config", file],
      cliEnv({ ...keys, REIN_WORKER_PROVIDER: "claude", REIN_WORKER_MODEL: "claude-haiku-5-5" }),
    );
    expect(result.stdout).toMatch(/^worker\s+claude\s+anthropic\s+claude-haiku-5-5$/m);
  }, 60_000);

  it("fails fast naming the role when it points at a provider that is not configured", async () => {
    await writeFile(file, JSON.stringify(configWith({ provider: "gemini", model: "g-1" })));
    const result = await rein(["models", "--config", file], cliEnv(keys));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/roles\.worker\.provider/);
    expect(result.stderr).toMatch(/"gemini"/);
  }, 60_000);
});

describe("rein models: what the catalogue says of each role's model, and what is wrong", () => {
  it("prints API, structured output, thinking, sampling, limits, prices and retirement per model", async () => {
    await writeFile(file, JSON.stringify(configWith({ provider: "gpt", model: "gpt-4.1-mini" })));
    const result = await rein(["models", "--config", file], cliEnv(keys));
    expect(result.code, result.stderr).toBe(0);
    const block = (model: string) => result.stdout.slice(result.stdout.indexOf(`\n${model} (`)).split("\n\n")[0] as string;
    const sonnet = block("claude-sonnet-5-5");
    expect(sonnet).toContain("claude-sonnet-5-5 (claude, anthropic) for planner");
    expect(sonnet).toMatch(/API\s+Anthropic Messages/);
    expect(sonnet).toMatch(/structured\s+output_config\.format with a JSON schema; forcing one tool: refused/);
    expect(sonnet).toMatch(/thinking\s+adaptive thinking; effort low, medium, high, xhigh, max \(default high\)/);
    expect(sonnet).toMatch(/sampling\s+none \(temperature refused\)/);
    expect(sonnet).toMatch(/limits\s+context 1,000,000 tokens; max output 128,000; max_tokens by default 32,000/);
    expect(sonnet).toMatch(
      /price\s+\$2 in, \$10 out, \$0\.10 cache read, \$2\.50 cache write \(short-lived\), \$4 \(long-lived\) per million tokens \(catalogue, read 2026-12-03\)/,
    );
    expect(block("gpt-4.1-mini")).toMatch(/API\s+OpenAI Chat Completions/);
    expect(block("gpt-4.1-mini")).toMatch(/retires\s+2027-01-14/);
    expect(block("qwen2.5:7b")).toMatch(/not in the catalogue: a compatible server's models are the operator's/);
    expect(result.stdout).toMatch(
      /^ {2}warning {2}roles\.worker\.model: gpt-4\.1-mini retires on 2027-01-14, when requests to it start failing; move to gpt-6\.2-sol before then$/m,
    );
  }, 60_000);

  it("exits 2 listing each refused setting with its role and fix", async () => {
    const config = configWith({ provider: "claude", model: "claude-sonnet-5-5" });
    await writeFile(
      file,
      JSON.stringify({
        ...config,
        roles: {
          ...config.roles,
          planner: { provider: "claude", model: "claude-sonnet-4-5" },
          worker: { ...config.roles.worker, temperature: 0.2 },
        },
      }),
    );
    const result = await rein(["models", "--config", file], cliEnv(keys));
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(
      /^ {2}error {4}roles\.planner\.model: claude-sonnet-4-5 was retired on 2026-11-30 \(requests to it fail\); use claude-sonnet-5-5$/m,
    );
    expect(result.stdout).toMatch(
      /^ {2}error {4}roles\.worker\.temperature: claude-sonnet-5-5 takes no sampling parameters .*; remove it$/m,
    );
  }, 60_000);
});

describe("checking the models live, at `rein models check` and before `rein run` and `rein worker` start", () => {
  const prefixes = prefixesCleanedAfterAll();
  let server: FakeServer;
  beforeEach(async () => {
    // Replies queued by a test go first; the strict Messages emulator answers the rest.
    const emulator = new AnthropicMessagesEmulator({
      brain: () => ({ content: [{ type: "text", text: '{"ok":true}' }], output: { ok: true } }),
    });
    server = await new FakeServer(emulator.respond).start();
  });
  afterEach(async () => {
    await server.stop();
  });

  /** Every role on Anthropic's API behind the fake server, with `worker` settings over claude-sonnet-5-5. */
  const anthropicConfig = (worker: Record<string, unknown> = {}) => {
    const role = { provider: "claude", model: "claude-sonnet-5-5" };
    return {
      providers: { claude: { kind: "anthropic", baseURL: server.baseURL, apiKeyEnv: "CLAUDE_KEY", maxRetries: 0 } },
      roles: { planner: role, worker: { ...role, ...worker }, evaluator: role, judge: role },
    };
  };
  const refused = (status: number, type: string, message: string): FakeReply => ({
    status,
    json: { type: "error", error: { type, message }, request_id: "req_1" },
  });

  it("rein models check calls once per distinct role setting and reports each result with its fix", async () => {
    await writeFile(file, JSON.stringify(anthropicConfig({ effort: "low" })));
    server.queue(refused(401, "authentication_error", "invalid x-api-key"));
    const result = await rein(["models", "check", "--config", file], cliEnv(keys));
    expect(server.requests).toHaveLength(2);
    expect(result.code).toBe(1);
    const lines = result.stdout.split("\n").filter((line) => /^(ok|failed|inconclusive)\s/.test(line));
    expect(lines).toHaveLength(2);
    // The first request was refused, the other answered by the emulator: which group got which depends on arrival.
    expect(lines.map((line) => line.split(/\s+/)[0]).sort()).toEqual(["failed", "ok"]);
    expect(lines.map((line) => line.replace(/^\S+\s+/, "").split(":")[0]).sort()).toEqual(["planner, evaluator, judge", "worker"]);
    expect(result.stdout).toMatch(
      /^failed\s+.*HTTP 401 authentication_error: invalid x-api-key; the key was refused; set a valid key in CLAUDE_KEY$/m,
    );
    expect(result.stdout + result.stderr).not.toContain("MODELS-CANARY");
  }, 60_000);

  it("rein run stops before any call on a refused setting, and on a live refusal before the run starts", async () => {
    const env = cliEnv(keys);
    prefixes.push(env.REIN_PREFIX as string);
    await writeFile(file, JSON.stringify(anthropicConfig({ temperature: 0.2 })));
    const refusedSetting = await rein(["run", "Say hello.", "--config", file], env);
    expect(refusedSetting.code).toBe(2);
    expect(refusedSetting.stderr).toContain("roles.worker.temperature: claude-sonnet-5-5 takes no sampling parameters");
    expect(server.requests).toHaveLength(0);

    await writeFile(file, JSON.stringify(anthropicConfig()));
    server.queue(refused(404, "not_found_error", "model: claude-sonnet-5-5"));
    const retired = await rein(["run", "Say hello.", "--config", file], env);
    expect(retired.code).toBe(2);
    // The roles rein run calls models for: the evaluator's calls are its judge's.
    expect(retired.stderr).toMatch(
      /the model check before starting failed: planner, worker, judge: claude\/claude-sonnet-5-5: HTTP 404 not_found_error: model: claude-sonnet-5-5; the model is retired, misspelled or not open to this key; use a model `rein models` lists$/m,
    );
    expect(server.requests).toHaveLength(1);
    expect(retired.stdout).not.toMatch(/submitted|run_/);
  }, 120_000);

  it("rein serve refuses a setting the model would refuse; its controller calls no model", async () => {
    const env = cliEnv(keys);
    prefixes.push(env.REIN_PREFIX as string);
    await writeFile(file, JSON.stringify(anthropicConfig({ effort: "minimal" })));
    const result = await rein(["serve", "--config", file], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'roles.worker.effort: claude-sonnet-5-5 does not accept effort "minimal" (it accepts low, medium, high, xhigh, max); use one of those',
    );
    expect(server.requests).toHaveLength(0);
  }, 60_000);

  it("rein worker checks the model of the role it runs, and stops on a refusal", async () => {
    const env = cliEnv(keys);
    prefixes.push(env.REIN_PREFIX as string);
    await writeFile(file, JSON.stringify(anthropicConfig({ model: "claude-opus-5-5" })));
    server.queue(refused(403, "permission_error", "Your API key does not have permission to use the specified resource."));
    const result = await rein(["worker", "--role", "step", "--config", file], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/worker: claude\/claude-opus-5-5: HTTP 403 permission_error: .*; this key may not use this model/);
    // Only the step worker's model was called, not the planner's.
    expect(server.requests.map((request) => request.body.model)).toEqual(["claude-opus-5-5"]);
  }, 60_000);
});

describe("rein models: the fleet's rate limits, configured and learned", () => {
  const runtimeFor = cliRuntimesClosedAfterAll();
  const budget = { requestsPerMinute: 60, inputTokensPerMinute: 30_000, maxInFlight: 4 };
  const limitedConfig = () => {
    const config = configWith({ provider: "claude", model: "claude-sonnet-5-5" });
    return { ...config, providers: { ...config.providers, claude: { ...config.providers.claude, limits: budget } } };
  };
  const limitLines = (stdout: string) => {
    const block = stdout.slice(stdout.indexOf("\nclaude-sonnet-5-5 (")).split("\n\n")[0] as string;
    return block.split("\n").filter((line) => /^ {2}(rate limits|learned|fleet)\s/.test(line));
  };

  it("shows the configured limits and what the provider's headers taught the fleet, read from Redis", async () => {
    await writeFile(file, JSON.stringify(limitedConfig()));
    const env = cliEnv(keys);
    const runtime = runtimeFor(env);
    const limiter = new RedisRateLimiter(runtime.redis, runtime.keys);
    const scope = { provider: "claude", model: "claude-sonnet-5-5" };
    const demand = { inputTokens: 1_000, outputTokens: 100 };
    await limiter.reserve(scope, { id: "call_1", demand, budget, leaseMs: 60_000, waitedMs: 2_500 });
    await limiter.observe(scope, { requests: { limit: 50, remaining: 45 }, inputTokens: { limit: 40_000, remaining: 39_000 } }, budget);
    // Long enough to outlast the CLI's start on a loaded machine.
    await limiter.pause(scope, 600_000);

    const result = await rein(["models", "--config", file], env);
    expect(result.code, result.stderr).toBe(0);
    expect(limitLines(result.stdout)).toEqual([
      "  rate limits   shared by the fleet: 60 requests/min, 30000 input tokens/min, 4 in flight; lowered to what the provider's headers say",
      "  learned       from the provider's headers: 50 requests/min (45 left), 40000 input tokens/min (39000 left)",
      expect.stringMatching(
        /^ {2}fleet {9}1 granted, 1 in flight, 0 waiting, 1 waited \(2\.5 s in all\), 1 answered 429, paused until \S+$/,
      ),
    ]);
  });

  it("says when Redis is not reachable and shows the configured limits only", async () => {
    await writeFile(file, JSON.stringify(limitedConfig()));
    const result = await rein(["models", "--config", file], { ...cliEnv(keys), REDIS_URL: "redis://127.0.0.1:1" });
    expect(result.code, result.stderr).toBe(0);
    expect(limitLines(result.stdout)).toEqual([
      "  rate limits   shared by the fleet: 60 requests/min, 30000 input tokens/min, 4 in flight; lowered to what the provider's headers say",
      expect.stringMatching(/^ {2}learned {7}not read: no Redis answers at redis:\/\/127\.0\.0\.1:1 \(.+\); the configured limits only$/),
    ]);
  });
});
