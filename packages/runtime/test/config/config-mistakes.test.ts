import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/index.ts";
import { configFile, failure } from "./config-file.ts";

const scripted = { kind: "scripted" };

describe("a config with mistakes is refused, saying where and what was meant", () => {
  it("refuses unknown keys at any depth, suggesting the nearest known one", () => {
    const error = failure(() =>
      loadConfig({
        env: {},
        file: configFile({
          redisURL: "redis://x",
          providers: { s: scripted },
          roles: { worker: { provider: "s", modle: "m" } },
          tools: { comands: ["node"] },
        }),
      }),
    );
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain('redisURL (did you mean "redisUrl"?)');
    expect(error.message).toContain('roles.worker.modle (did you mean "model"?)');
    expect(error.message).toContain('tools.comands (did you mean "commands"?)');
  });

  it("refuses unknown keys in a program's overrides as in a file: a typo does not pass silently", () => {
    const error = failure(() => loadConfig({ env: {}, overrides: { prefixx: "mine" } as never }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain('prefixx (did you mean "prefix"?)');
  });

  it("names a section the environment merges into that is not an object, instead of spreading it", () => {
    const redis = failure(() =>
      loadConfig({ env: { REIN_REDIS_CLUSTER: "redis://a:7000" }, file: configFile({ redis: "redis://a:7000" }) }),
    );
    expect(redis.message).toBe("config key redis: expected an object");
    const role = failure(() =>
      loadConfig({
        env: { REIN_WORKER_MODEL: "qwen3", REIN_WORKER_PROVIDER: "s" },
        file: configFile({ providers: { s: scripted }, roles: { worker: "qwen3" } }),
      }),
    );
    expect(role.message).toBe("config key roles.worker: expected an object: { provider, model, … }");
    expect(failure(() => loadConfig({ env: {}, file: configFile({ roles: ["worker"] }) })).message).toBe(
      "config key roles: expected an object of roles",
    );
  });

  it("names an unknown key with nothing close without guessing", () => {
    const error = failure(() => loadConfig({ env: {}, file: configFile({ telemetry: true }) }));
    expect(error.message).toMatch(/keys Rein does not know: telemetry;/);
    expect(error.message).not.toMatch(/did you mean/);
  });

  it("accepts the $schema line editors use", () => {
    expect(loadConfig({ env: {}, file: configFile({ $schema: "./rein.schema.json", prefix: "p" }) }).prefix).toBe("p");
  });

  it("names the line and column of a JSON syntax error", () => {
    const error = failure(() => loadConfig({ env: {}, file: configFile('{\n  "prefix": "p",\n  redisUrl: "x"\n}') }));
    expect(error.message).toMatch(/is not valid JSON at line 3, column 3/);
  });

  it("requires a base URL for an openai-compatible provider", () => {
    const error = failure(() => loadConfig({ env: {}, file: configFile({ providers: { local: { kind: "openai-compatible" } } }) }));
    expect(error.message).toMatch(
      /config key providers\.local\.baseURL: provider "local" is openai-compatible and needs the server's base URL/,
    );
  });

  it("takes OPENAI_BASE_URL and ANTHROPIC_BASE_URL where the config names none, and never over one it names", () => {
    const config = loadConfig({
      env: { OPENAI_BASE_URL: "http://127.0.0.1:9999/v1", ANTHROPIC_BASE_URL: "http://127.0.0.1:9998" },
      file: configFile({
        providers: {
          scripted,
          local: { kind: "openai-compatible" },
          openai: { kind: "openai" },
          claude: { kind: "anthropic" },
          pinned: { kind: "openai", baseURL: "http://pinned/v1" },
        },
      }),
    });
    expect(config.providers.local?.baseURL).toBe("http://127.0.0.1:9999/v1");
    expect(config.providers.openai?.baseURL).toBe("http://127.0.0.1:9999/v1");
    expect(config.providers.claude?.baseURL).toBe("http://127.0.0.1:9998");
    expect(config.providers.pinned?.baseURL).toBe("http://pinned/v1");
  });
});
