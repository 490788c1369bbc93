import { z } from "zod";
import type { ProviderConfig, RoleModelConfig } from "../model-config.ts";
import { Role, ReinError } from "@rein/contracts";
import { modelEntryFor } from "./model-catalogue.ts";
import type { Effort, ModelEntry, SamplingParameter } from "./model-entry.ts";
import { recommendedModelFor } from "./recommended-models.ts";
import { retiredModelFor } from "./retired-models.ts";

/** One thing wrong with a role's model settings, found before any call is made. */
export const ModelConfigProblem = z.object({
  /** `error`: the provider would refuse the calls, so Rein does not start; `warning`: it starts and says so. */
  severity: z.enum(["error", "warning"]),
  code: z.enum([
    "model_retired",
    "model_retiring",
    "model_unknown",
    "model_of_other_provider",
    "effort_refused",
    "sampling_refused",
    "max_tokens_above_limit",
  ]),
  role: Role,
  /** The config key to change, e.g. `roles.worker.temperature`. */
  key: z.string(),
  provider: z.string(),
  model: z.string(),
  /** What is wrong and the fix, starting with the key. */
  message: z.string(),
});
export type ModelConfigProblem = z.infer<typeof ModelConfigProblem>;

const providerNames = { anthropic: "Anthropic", openai: "OpenAI" } as const;

/** YYYY-MM-DD in UTC, the form of every date in the catalogue. */
const dayOf = (today: Date | string): string => (typeof today === "string" ? today : today.toISOString().slice(0, 10));

/**
 * The sampling parameters `entry` accepts with the role's effort (or the
 * model's default): OpenAI's GPT-5.1+ and GPT-6 Sol and Luna take
 * `temperature` and `top_p` only while they do not reason (effort `none`).
 */
export function acceptedSampling(entry: ModelEntry, effort: Effort | undefined): SamplingParameter[] {
  const reasoningOff = (effort ?? entry.thinking.defaultEffort) === "none";
  return [...entry.sampling, ...(reasoningOff ? (entry.samplingWhenEffortNone ?? []) : [])];
}

/**
 * Checks one role's provider, model, effort, temperature and maxTokens
 * against the model catalogue. Only the catalogue's providers (anthropic,
 * openai) are checked: what an openai-compatible server serves is the
 * operator's to know, and scripted or replayed models accept anything.
 */
export function checkRoleModel(
  role: Role,
  choice: RoleModelConfig,
  providerKind: ProviderConfig["kind"],
  today: Date | string = new Date(),
): ModelConfigProblem[] {
  if (providerKind !== "anthropic" && providerKind !== "openai") return [];
  const { provider, model } = choice;
  const problem = (
    severity: ModelConfigProblem["severity"],
    code: ModelConfigProblem["code"],
    field: string,
    text: string,
  ): ModelConfigProblem => ({
    severity,
    code,
    role,
    key: `roles.${role}.${field}`,
    provider,
    model,
    message: `roles.${role}.${field}: ${text}`,
  });
  const day = dayOf(today);
  const recommended = recommendedModelFor(providerKind);
  const retired = retiredModelFor(providerKind, model);
  if (retired)
    return [
      problem(
        "error",
        "model_retired",
        "model",
        `${model} was retired on ${retired.retired} (requests to it fail); use ${retired.successor}`,
      ),
    ];

  const entry = modelEntryFor(providerKind, model);
  if (!entry) {
    const otherKind = providerKind === "anthropic" ? "openai" : "anthropic";
    if (modelEntryFor(otherKind, model) || retiredModelFor(otherKind, model)) {
      return [
        problem(
          "error",
          "model_of_other_provider",
          "model",
          `${model} is an ${providerNames[otherKind]} model, but provider "${provider}" is ${providerKind}; name a provider of kind ${otherKind}, or an ${providerNames[providerKind]} model such as ${recommended}`,
        ),
      ];
    }
    return [
      problem(
        "warning",
        "model_unknown",
        "model",
        `${model} is not in Rein's model catalogue for ${providerKind}, so it is called without the thinking, effort and structured-output settings an entry would give it; check the id (\`rein models check\` asks ${providerNames[providerKind]}), or add a catalogue entry (docs/models.md)`,
      ),
    ];
  }

  const problems: ModelConfigProblem[] = [];
  if (entry.retires !== undefined && entry.retires <= day) {
    problems.push(
      problem("error", "model_retired", "model", `${model} was retired on ${entry.retires} (requests to it fail); use ${recommended}`),
    );
  } else if (entry.retires !== undefined) {
    problems.push(
      problem(
        "warning",
        "model_retiring",
        "model",
        `${model} retires on ${entry.retires}, when requests to it start failing; move to ${recommended} before then`,
      ),
    );
  }
  if (choice.effort !== undefined && !entry.thinking.efforts.includes(choice.effort)) {
    problems.push(
      entry.thinking.efforts.length === 0
        ? problem("error", "effort_refused", "effort", `${model} takes no effort parameter; remove it`)
        : problem(
            "error",
            "effort_refused",
            "effort",
            `${model} does not accept effort "${choice.effort}" (it accepts ${entry.thinking.efforts.join(", ")}); use one of those`,
          ),
    );
  }
  if (choice.temperature !== undefined && !acceptedSampling(entry, choice.effort).includes("temperature")) {
    problems.push(problem("error", "sampling_refused", "temperature", temperatureRefusal(entry)));
  }
  if (choice.maxTokens !== undefined && choice.maxTokens > entry.maxOutputTokens) {
    problems.push(
      problem(
        "error",
        "max_tokens_above_limit",
        "maxTokens",
        `${choice.maxTokens} is above ${model}'s max output of ${entry.maxOutputTokens} tokens; use at most ${entry.maxOutputTokens}`,
      ),
    );
  }
  return problems;
}

function temperatureRefusal(entry: ModelEntry): string {
  if (entry.samplingWhenEffortNone?.includes("temperature")) {
    return `${entry.id} takes temperature only while it does not reason (effort "none"); remove it, or set effort to "none"`;
  }
  if (entry.provider === "anthropic") {
    return `${entry.id} takes no sampling parameters (the Messages API refuses temperature, top_p and top_k on it); remove it`;
  }
  return `${entry.id} takes no sampling parameters (OpenAI refuses temperature and top_p on its reasoning models); remove it`;
}

/** Every role's problems, in role order. */
export function checkRoleModels(
  config: { providers: Readonly<Record<string, ProviderConfig>>; roles: Readonly<Record<Role, RoleModelConfig>> },
  today: Date | string = new Date(),
): ModelConfigProblem[] {
  return Role.options.flatMap((role) => {
    const choice = config.roles[role];
    const kind = config.providers[choice.provider]?.kind;
    return kind ? checkRoleModel(role, choice, kind, today) : [];
  });
}

/**
 * What `rein run`, `serve` and `worker` call before they start anything:
 * throws a `config_invalid` ReinError listing every error (a refused
 * parameter fails here, not as a 400 at the first call) and returns the
 * warnings for the caller to show.
 */
export function assertRoleModels(config: Parameters<typeof checkRoleModels>[0], today: Date | string = new Date()): ModelConfigProblem[] {
  const problems = checkRoleModels(config, today);
  const errors = problems.filter((found) => found.severity === "error");
  if (errors.length > 0) {
    throw new ReinError("config_invalid", `the configured models would be refused: ${errors.map((found) => found.message).join("; ")}`, {
      details: { problems: errors },
    });
  }
  return problems;
}
