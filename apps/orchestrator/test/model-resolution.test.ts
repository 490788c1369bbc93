import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadExample } from "../src/examples/load-example.ts";
import { resolveModels } from "../src/cli/model-resolution.ts";
import { cliEnv, rein } from "./support/cli.ts";

/** An empty directory as the working directory, so no ./rein.config.json is picked up. */
const emptyCwd = () => mkdtempSync(join(tmpdir(), "rein-cwd-"));

describe("one model resolution for rein run and rein models", () => {
  it("uses the config's roles when it names them, whatever keys the environment has", () => {
    const file = join(emptyCwd(), "rein.config.json");
    writeFileSync(
      file,
      JSON.stringify({
        providers: { local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:1/v1" } },
        roles: Object.fromEntries(["planner", "worker", "evaluator", "judge"].map((role) => [role, { provider: "local", model: "m" }])),
      }),
    );
    const models = resolveModels({ configFile: file, env: { OPENAI_API_KEY: "sk-test" } });
    expect(models.overrides).toBeUndefined();
    expect(models.source).toContain(file);
  });

  it("takes an API key from the environment when the config names no model, and has none without one", () => {
    const file = join(emptyCwd(), "rein.config.json");
    writeFileSync(file, JSON.stringify({ prefix: "p" }));
    expect(resolveModels({ configFile: file, env: { ANTHROPIC_API_KEY: "sk-ant-test" } }).overrides?.roles?.worker).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-5-5",
    });
    expect(resolveModels({ configFile: file, env: {} }).missing).toBe(true);
  });

  it("falls back to the example's script, and says so", async () => {
    const example = await loadExample("bugfix");
    const models = resolveModels({ env: {}, example });
    expect(models.offline).toBe(true);
    expect(models.source).toMatch(/offline: every role plays bugfix's scripted model/);
  });

  it("rein models shows what rein run will use, environment keys and base URL included", async () => {
    const result = await rein(
      ["models"],
      cliEnv({ OPENAI_API_KEY: "sk-test-not-real", OPENAI_BASE_URL: "http://127.0.0.1:8099/v1", REIN_MODEL: "tiny" }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/using openai \(OPENAI_API_KEY\) with model tiny for every role/);
    expect(result.stdout).toMatch(/^worker\s+openai\s+openai\s+tiny\s+http:\/\/127\.0\.0\.1:8099\/v1$/m);
    expect(result.stdout).not.toContain("sk-test-not-real");
  }, 60_000);

  it("rein models with no model and no key says no model is configured, finds no clean config, and exits 2 as rein run would", async () => {
    const result = await rein(["models"], cliEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no model is configured; expected one of: ANTHROPIC_API_KEY or OPENAI_API_KEY/);
    expect(result.stdout).not.toMatch(/no problem found/);
  }, 60_000);

  it("rein models finds a scripted provider's broken script, naming the bad field, as rein run would refuse it", async () => {
    const dir = emptyCwd();
    writeFileSync(join(dir, "script.json"), JSON.stringify({ planner: [{ match: "x", turns: "oops" }] }));
    const scripted = { provider: "scripted", model: "scripted-1" };
    const file = join(dir, "rein.config.json");
    writeFileSync(
      file,
      JSON.stringify({
        providers: { scripted: { kind: "scripted", script: "script.json" } },
        roles: { planner: scripted, worker: scripted, evaluator: scripted, judge: scripted },
      }),
    );
    const models = await rein(["models", "--config", file], cliEnv());
    expect(models.code).toBe(2);
    expect(models.stdout).not.toMatch(/no problem found/);
    expect(models.stdout).toMatch(
      /error +providers\.scripted\.script: config_invalid: model script .*script\.json is invalid: planner\.0\.turns: .*expected array/,
    );
    const run = await rein(["run", "Say hello.", "--config", file], cliEnv());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/planner\.0\.turns: .*expected array/);
    expect(run.stderr).not.toContain('"path"');
  }, 60_000);

  it("rein run with no model and no key says no model is configured and how to configure one", async () => {
    const result = await rein(["run", "fix the bug in src/slug.js"], cliEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no model is configured; expected one of: ANTHROPIC_API_KEY or OPENAI_API_KEY/);
    expect(result.stderr).not.toMatch(/script_exhausted/);
  }, 60_000);
});
