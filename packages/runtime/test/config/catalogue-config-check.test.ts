import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, ReinConfig, type ReinConfigInput } from "../../src/config/config.ts";
import { ReinError } from "@rein/contracts";
import { assertRoleModels, checkRoleModels } from "@rein/models";

const today = "2026-12-03";

/** A config whose every role uses `role` on a provider of `kind`, with `overrides` per role. */
function configWith(
  kind: "anthropic" | "openai" | "openai-compatible",
  roles: Partial<Record<"planner" | "worker" | "evaluator" | "judge", Record<string, unknown>>>,
): ReinConfig {
  const provider = kind === "openai-compatible" ? { kind, baseURL: "http://127.0.0.1:11434/v1" } : { kind };
  const base = { provider: "p", model: kind === "anthropic" ? "claude-sonnet-5-5" : "gpt-6.2-sol" };
  const input: ReinConfigInput = {
    providers: { p: provider },
    roles: {
      planner: { ...base, ...roles.planner },
      worker: { ...base, ...roles.worker },
      evaluator: { ...base, ...roles.evaluator },
      judge: { ...base, ...roles.judge },
    } as ReinConfigInput["roles"],
  };
  return ReinConfig.parse(input);
}

const messages = (config: ReinConfig, day = today) =>
  checkRoleModels(config, day).map((problem) => `${problem.severity} ${problem.message}`);

describe("roles checked against the model catalogue", () => {
  it("accepts the current models with the settings they take", () => {
    expect(messages(configWith("anthropic", { planner: { effort: "max" }, worker: { maxTokens: 128_000 } }))).toEqual([]);
    expect(messages(configWith("openai", { planner: { effort: "low" } }))).toEqual([]);
  });

  it("refuses a temperature Claude 5.5 would answer with a 400, naming the role, the model and the fix", () => {
    expect(messages(configWith("anthropic", { worker: { temperature: 0.2 } }))).toEqual([
      "error roles.worker.temperature: claude-sonnet-5-5 takes no sampling parameters (the Messages API refuses temperature, top_p and top_k on it); remove it",
    ]);
    // Nor does Claude 4.6: API version 2026-10-21, which the installed SDK sends, refuses sampling on every model
    // (https://platform.claude.com/docs/en/api/versioning).
    expect(messages(configWith("anthropic", { worker: { model: "claude-sonnet-4-6", temperature: 0.2 } }))).toEqual([
      "error roles.worker.temperature: claude-sonnet-4-6 takes no sampling parameters (the Messages API refuses temperature, top_p and top_k on it); remove it",
    ]);
  });

  it("refuses a retired model with its successor, whatever else the role sets", () => {
    expect(messages(configWith("anthropic", { planner: { model: "claude-sonnet-4-5", temperature: 0 } }))).toEqual([
      "error roles.planner.model: claude-sonnet-4-5 was retired on 2026-11-30 (requests to it fail); use claude-sonnet-5-5",
    ]);
    expect(messages(configWith("openai", { judge: { model: "o4-mini-2025-04-16" } }))).toEqual([
      "error roles.judge.model: o4-mini-2025-04-16 was retired on 2026-10-23 (requests to it fail); use gpt-6.2-sol",
    ]);
  });

  it("warns of a model that retires later, and refuses it from that day on", () => {
    const config = configWith("openai", { worker: { model: "gpt-4.1-mini" } });
    expect(messages(config)).toEqual([
      "warning roles.worker.model: gpt-4.1-mini retires on 2027-01-14, when requests to it start failing; move to gpt-6.2-sol before then",
    ]);
    expect(messages(config, "2027-01-14")).toEqual([
      "error roles.worker.model: gpt-4.1-mini was retired on 2027-01-14 (requests to it fail); use gpt-6.2-sol",
    ]);
  });

  it("refuses an effort the model does not take, saying which it does", () => {
    expect(messages(configWith("openai", { planner: { effort: "none" } }))).toEqual([
      'error roles.planner.effort: gpt-6.2-sol does not accept effort "none" (it accepts low, medium, high, xhigh, max); use one of those',
    ]);
    expect(messages(configWith("anthropic", { worker: { model: "claude-haiku-4-5", effort: "low" } }))).toEqual([
      "error roles.worker.effort: claude-haiku-4-5 takes no effort parameter; remove it",
    ]);
  });

  it("takes GPT-6 Sol's temperature only while it does not reason (effort none)", () => {
    expect(messages(configWith("openai", { worker: { model: "gpt-6-sol", temperature: 0.3 } }))).toEqual([
      'error roles.worker.temperature: gpt-6-sol takes temperature only while it does not reason (effort "none"); remove it, or set effort to "none"',
    ]);
    expect(messages(configWith("openai", { worker: { model: "gpt-6-sol", temperature: 0.3, effort: "none" } }))).toEqual([]);
    // GPT-5.4 does not reason unless asked: its default effort is none.
    expect(messages(configWith("openai", { worker: { model: "gpt-5.4", temperature: 0.3 } }))).toEqual([]);
  });

  it("refuses maxTokens above the model's max output", () => {
    expect(messages(configWith("openai", { worker: { model: "gpt-4o", maxTokens: 32_000 } }))).toContain(
      "error roles.worker.maxTokens: 32000 is above gpt-4o's max output of 16384 tokens; use at most 16384",
    );
  });

  it("refuses another provider's model, and only warns of a model it does not know", () => {
    expect(messages(configWith("anthropic", { worker: { model: "gpt-6.2-sol" } }))).toEqual([
      'error roles.worker.model: gpt-6.2-sol is an OpenAI model, but provider "p" is anthropic; name a provider of kind openai, or an Anthropic model such as claude-sonnet-5-5',
    ]);
    const unknown = checkRoleModels(configWith("anthropic", { worker: { model: "claude-nova-1", temperature: 0.5 } }), today);
    expect(unknown).toMatchObject([
      { severity: "warning", code: "model_unknown", role: "worker", key: "roles.worker.model", model: "claude-nova-1" },
    ]);
  });

  it("does not check what a compatible server serves", () => {
    expect(messages(configWith("openai-compatible", { worker: { model: "qwen3:8b", temperature: 0.7, effort: "max" } }))).toEqual([]);
  });

  it("stops a loaded config before anything starts, listing every error as one config_invalid error", () => {
    const file = join(mkdtempSync(join(tmpdir(), "rein-model-check-")), "rein.config.json");
    const role = { provider: "claude", model: "claude-sonnet-5-5" };
    writeFileSync(
      file,
      JSON.stringify({
        providers: { claude: { kind: "anthropic" } },
        roles: {
          planner: { ...role, model: "claude-sonnet-4-5" },
          worker: { ...role, temperature: 0.2 },
          evaluator: role,
          judge: { ...role, model: "claude-nova-1" },
        },
      }),
    );
    const config = loadConfig({ file, env: {} });
    let thrown: unknown;
    try {
      assertRoleModels(config, today);
    } catch (error) {
      thrown = error;
    }
    expect(ReinError.hasCode(thrown, "config_invalid")).toBe(true);
    const error = thrown as ReinError;
    expect(error.message).toContain("roles.planner.model: claude-sonnet-4-5 was retired on 2026-11-30");
    expect(error.message).toContain("roles.worker.temperature: claude-sonnet-5-5 takes no sampling parameters");
    expect(error.message).not.toContain("claude-nova-1");
    expect(error.details.problems).toHaveLength(2);
    // Without errors the warnings come back for the caller to say.
    const warningsOnly = { ...config, roles: { ...config.roles, planner: config.roles.evaluator, worker: config.roles.evaluator } };
    expect(assertRoleModels(warningsOnly, today).map((problem) => problem.code)).toEqual(["model_unknown"]);
  });
});
