import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@rein/core";
import { providerForRole } from "../src/roles/role-providers.ts";
import { cliEnv, rein } from "./support/cli.ts";

const keys = { CLAUDE_KEY: "sk-ant-MODELS-CANARY-1f2e3d", GPT_KEY: "sk-proj-MODELS-CANARY-9a8b7c" };

/** A rein.config.json; only `roles.worker.provider` and `.model` differ between the two versions. */
const configWith = (worker: { provider: string; model: string }) => ({
  providers: {
    claude: { kind: "anthropic", apiKeyEnv: "CLAUDE_KEY" },
    gpt: { kind: "openai", apiKeyEnv: "GPT_KEY" },
    local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" },
  },
  roles: {
    planner: { provider: "claude", model: "claude-sonnet-4-5" },
    worker,
    evaluator: { provider: "local", model: "qwen2.5:7b" },
    judge: { provider: "local", model: "qwen2.5:7b" },
  },
});

describe("swapping a role's provider is a config change only", () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rein-models-"));
    file = join(dir, "rein.config.json");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("shows the swap in `rein models` and builds the other provider for the role", async () => {
    await writeFile(file, JSON.stringify(configWith({ provider: "gpt", model: "gpt-4o-mini" })));
    const before = await rein(["models", "--config", file], cliEnv(keys));
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^worker\s+gpt\s+openai\s+gpt-4o-mini\s*$/m);
    expect(before.stdout).toMatch(/^planner\s+claude\s+anthropic\s+claude-sonnet-4-5\s*$/m);
    const first = providerForRole(loadConfig({ file, env: {} }), "worker", keys);
    expect([first.name, first.kind, first.model]).toEqual(["gpt", "openai", "gpt-4o-mini"]);

    await writeFile(file, JSON.stringify(configWith({ provider: "local", model: "llama3.1:8b" })));
    const after = await rein(["models", "--config", file], cliEnv(keys));
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/^worker\s+local\s+openai-compatible\s+llama3\.1:8b\s+http:\/\/127\.0\.0\.1:11434\/v1$/m);
    // Nothing else moved.
    expect(after.stdout.replace(/^worker.*$/m, "")).toBe(before.stdout.replace(/^worker.*$/m, ""));
    const second = providerForRole(loadConfig({ file, env: {} }), "worker", keys);
    expect([second.name, second.kind, second.model]).toEqual(["local", "openai-compatible", "llama3.1:8b"]);

    for (const output of [before, after]) expect(output.stdout + output.stderr).not.toContain("MODELS-CANARY");
  });

  it("lets the environment swap it too, over the file", async () => {
    await writeFile(file, JSON.stringify(configWith({ provider: "gpt", model: "gpt-4o-mini" })));
    const result = await rein(["models", "--config", file], cliEnv({ ...keys, REIN_WORKER_PROVIDER: "claude", REIN_WORKER_MODEL: "claude-haiku-4-5" }));
    expect(result.stdout).toMatch(/^worker\s+claude\s+anthropic\s+claude-haiku-4-5\s*$/m);
  });

  it("fails fast naming the role when it points at a provider that is not configured", async () => {
    await writeFile(file, JSON.stringify(configWith({ provider: "gemini", model: "g-1" })));
    const result = await rein(["models", "--config", file], cliEnv(keys));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/roles\.worker\.provider/);
    expect(result.stderr).toMatch(/"gemini"/);
  });
});
