import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/index.ts";
import { configFile, failure } from "./config-file.ts";

describe("loadConfig", () => {
  it("gives sensible defaults with no file", () => {
    const config = loadConfig({ env: {}, file: configFile({}) });
    expect(config.prefix).toBe("rein");
    expect(config.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(config.roles.worker.provider).toBe("scripted");
  });

  it("keeps key files in .rein/keys next to the config file, or where REIN_KEYS_DIR says", () => {
    const file = configFile({});
    expect(loadConfig({ env: {}, file }).keysDir).toBe(join(file, "..", ".rein", "keys"));
    expect(loadConfig({ env: {}, file: configFile({ keysDir: "secrets/rein" }) }).keysDir).toMatch(/rein-config-[^/]+\/secrets\/rein$/);
    expect(loadConfig({ env: { REIN_KEYS_DIR: "/etc/rein" }, file }).keysDir).toBe("/etc/rein");
  });

  it("names the bad key and what was expected", () => {
    const error = failure(() => loadConfig({ env: {}, file: configFile({ observations: { maxBytes: -5 } }) }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toMatch(/config key observations\.maxBytes/);
  });

  it("refuses a host allowlist entry without a port, suggesting :443", () => {
    const error = failure(() => loadConfig({ env: {}, file: configFile({ tools: { hosts: ["api.github.com"] } }) }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain('config key tools.hosts.0: "api.github.com" names no port; did you mean "api.github.com:443"?');
  });

  it("reads host:port entries and secret bindings, keeping the bare secret form as bound to nothing", () => {
    const config = loadConfig({
      env: {},
      file: configFile({
        tools: { hosts: ["api.example.com:443", "*.internal.example:8443", "[::1]:8080"] },
        secrets: ["LEGACY_TOKEN", { env: "PAYMENTS_TOKEN", hosts: ["api.example.com:443"], tools: ["http_request"] }],
      }),
    });
    expect(config.tools.hosts).toEqual(["api.example.com:443", "*.internal.example:8443", "[::1]:8080"]);
    expect(config.secrets).toEqual([
      { env: "LEGACY_TOKEN", tools: [], hosts: [] },
      { env: "PAYMENTS_TOKEN", tools: ["http_request"], hosts: ["api.example.com:443"] },
    ]);
  });

  it("refuses an API key where the name of its variable belongs", () => {
    const error = failure(() =>
      loadConfig({ env: {}, file: configFile({ providers: { claude: { kind: "anthropic", apiKeyEnv: "sk-ant-abc123" } } }) }),
    );
    expect(error.message).toMatch(/providers\.claude\.apiKeyEnv: expected the name of an environment variable/);
    expect(error.message).not.toContain("sk-ant-abc123");
  });

  it("names the role and the unknown provider it points at", () => {
    const error = failure(() =>
      loadConfig({ env: {}, file: configFile({ roles: { planner: { provider: "claude", model: "claude-x" } } }) }),
    );
    expect(error.message).toMatch(/config key roles\.planner\.provider: role planner names provider "claude", which is not configured/);
  });

  it("lets the environment override the file, role by role", () => {
    const file = configFile({
      providers: { scripted: { kind: "scripted" }, local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" } },
      roles: { worker: { provider: "scripted", model: "a" } },
    });
    const config = loadConfig({
      file,
      env: { REIN_WORKER_PROVIDER: "local", REIN_WORKER_MODEL: "qwen3", REDIS_URL: "redis://10.0.0.1:6380", REIN_PREFIX: "team" },
    });
    expect(config.roles.worker).toMatchObject({ provider: "local", model: "qwen3" });
    expect(config.redisUrl).toBe("redis://10.0.0.1:6380");
    expect(config.prefix).toBe("team");
  });

  it("lets the evaluator's model judge unless a judge of its own is named", () => {
    const providers = { scripted: { kind: "scripted" }, local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" } };
    const evaluatorOnly = loadConfig({
      env: {},
      file: configFile({ providers, roles: { evaluator: { provider: "local", model: "qwen3" } } }),
    });
    expect(evaluatorOnly.roles.judge).toMatchObject({ provider: "local", model: "qwen3" });
    const both = loadConfig({
      env: {},
      file: configFile({
        providers,
        roles: { evaluator: { provider: "local", model: "qwen3" }, judge: { provider: "scripted", model: "s" } },
      }),
    });
    expect(both.roles.judge).toMatchObject({ provider: "scripted", model: "s" });
  });

  it("says a config file that does not exist does not exist", () => {
    expect(() => loadConfig({ env: {}, file: "/nonexistent/rein.config.json" })).toThrow(
      /config file \/nonexistent\/rein\.config\.json does not exist/,
    );
  });

  it("says a file that is not JSON is not JSON", () => {
    expect(() => loadConfig({ env: {}, file: configFile("{ nope") })).toThrow(/expected valid JSON/);
  });
});
