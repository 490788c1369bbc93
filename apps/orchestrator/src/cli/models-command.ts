import { Role } from "@rein/contracts";
import { CATALOGUE_READ_ON, checkRoleModels, modelEntryFor, priceFor } from "@rein/models";
import { budgetFor, type RateDimension } from "@rein/models/rate-limit";
import type { ReinConfig } from "@rein/runtime";
import { loadExample } from "../examples/load-example.ts";
import { type FleetRateReading, readFleetRateBudgets } from "../rate-limit/fleet-rate-budgets.ts";
import { liveCheckRoles, providerFileProblems, roleTable } from "@rein/controller";
import type { CommandHandler } from "./command-spec.ts";
import type { MODELS } from "./command-specs.ts";
import { contextFlags, loadCliConfig } from "./cli-context.ts";
import { describeEntry } from "./model-description.ts";
import { resolveModels } from "./model-resolution.ts";
import { err, out } from "./output.ts";

/**
 * `rein models`: the roles' models as `rein run` resolves them, what the
 * catalogue says each accepts and costs, and every config problem; exit 2
 * when one would stop `rein run`, no model at all among them. `rein models
 * check`: one live call per distinct role setting; exit 1 when a provider
 * refused one.
 */
export const modelsCommand: CommandHandler<typeof MODELS> = async (args, flags) => {
  const example = flags.example === undefined ? undefined : await loadExample(flags.example);
  const models = resolveModels({ configFile: flags.config, example });
  // With no model `rein run` refuses to start; the table still shows the built-in default it would have had.
  if (models.missing) err(models.source);
  else out(models.source);
  const config = loadCliConfig({ ...contextFlags(flags), overrides: models.overrides });
  const rows = roleTable(config);
  out(`${"role".padEnd(10)} ${"provider".padEnd(18)} ${"kind".padEnd(18)} ${"model".padEnd(28)} base URL`);
  for (const row of rows)
    out(`${row.role.padEnd(10)} ${row.provider.padEnd(18)} ${row.kind.padEnd(18)} ${row.model.padEnd(28)} ${row.baseURL}`.trimEnd());
  // Redis is asked only when some provider is limited: `rein models` needs no Redis otherwise.
  const limited = Object.values(config.providers).some((provider) => provider.limits);
  const fleet = limited ? await readFleetRateBudgets(config) : undefined;
  for (const line of catalogueLines(config, fleet)) out(line);
  const problems = [
    ...checkRoleModels(config),
    ...providerFileProblems(config, Role.options).map((message) => ({ severity: "error" as const, message })),
  ];
  out();
  if (models.missing) out("config: no model is configured, so `rein run` would refuse to start");
  else if (problems.length === 0) out(`config: no problem found against the model catalogue (read ${CATALOGUE_READ_ON})`);
  else {
    out(`config problems (model catalogue read ${CATALOGUE_READ_ON}):`);
    for (const problem of problems) out(`  ${problem.severity.padEnd(8)} ${problem.message}`);
  }
  const configErrors = models.missing || problems.some((problem) => problem.severity === "error");
  if (args.subcommand !== "check") return configErrors ? 2 : 0;

  out();
  const checks = await liveCheckRoles(config, Role.options, { kinds: ["anthropic", "openai", "openai-compatible"] });
  const checked = new Set(checks.flatMap((check) => check.roles));
  if (checks.length === 0) out("live check: no role uses a real provider (scripted and replayed models are not called)");
  for (const check of checks) out(`${check.status.padEnd(13)} ${check.roles.join(", ")}: ${check.message}`);
  for (const role of Role.options.filter((candidate) => !checked.has(candidate))) {
    out(
      `${"not called".padEnd(13)} ${role}: ${config.roles[role].provider} is ${config.providers[config.roles[role].provider]?.kind ?? "not configured"}, which makes no call to check`,
    );
  }
  return configErrors || checks.some((check) => check.status === "failed") ? 1 : 0;
};

/** A block per distinct provider and model that the catalogue knows or is asked about. */
function catalogueLines(config: ReinConfig, fleet: FleetRateReading | undefined): string[] {
  const byModel = new Map<string, Role[]>();
  for (const role of Role.options) {
    const key = `${config.roles[role].provider}/${config.roles[role].model}`;
    byModel.set(key, [...(byModel.get(key) ?? []), role]);
  }
  return [...byModel.values()].flatMap((roles) => {
    const choice = config.roles[roles[0] as Role];
    const kind = config.providers[choice.provider]?.kind ?? "";
    if (kind === "scripted" || kind === "replay") return [];
    const header = `${choice.model} (${choice.provider}, ${kind}) for ${roles.join(", ")}`;
    const settings = roles.flatMap((role) => {
      const { effort, temperature, maxTokens } = config.roles[role];
      const set = [
        effort && `effort ${effort}`,
        temperature !== undefined && `temperature ${temperature}`,
        maxTokens !== undefined && `maxTokens ${maxTokens}`,
      ].filter(Boolean);
      return set.length > 0 ? [`${role}: ${set.join(", ")}`] : [];
    });
    const configured = [
      ...(settings.length > 0 ? [`  ${"configured".padEnd(13)} ${settings.join("; ")}`] : []),
      ...rateLimitLines(config, choice.provider, choice.model),
      ...(config.providers[choice.provider]?.limits ? learnedLines(fleet, choice.provider, choice.model) : []),
    ];
    const entry = modelEntryFor(kind, choice.model);
    if (!entry) {
      const why =
        kind === "openai-compatible"
          ? "a compatible server's models are the operator's to know; `rein models check` calls it"
          : "see the config problems below";
      return ["", header, `  ${"catalogue".padEnd(13)} not in the catalogue: ${why}`, ...configured];
    }
    const configuredPrice = config.prices[`${choice.provider}/${choice.model}`];
    const price = priceFor(config.prices, choice.provider, choice.model, kind);
    return [
      "",
      header,
      ...describeEntry(entry, price, configuredPrice ? "config prices" : `catalogue, read ${CATALOGUE_READ_ON}`),
      ...configured,
    ];
  });
}

/** The model's share of `providers.<name>.limits`: the fleet's shared budget; what the provider's headers teach is added at run time. */
function rateLimitLines(config: ReinConfig, provider: string, model: string): string[] {
  const limits = config.providers[provider]?.limits;
  if (!limits) return [`  ${"rate limits".padEnd(13)} none shared (each call retries 429s on its own)`];
  const budget = budgetFor(limits, model);
  const parts = [
    budget.requestsPerMinute !== undefined && `${budget.requestsPerMinute} requests/min`,
    budget.inputTokensPerMinute !== undefined && `${budget.inputTokensPerMinute} input tokens/min`,
    budget.outputTokensPerMinute !== undefined && `${budget.outputTokensPerMinute} output tokens/min`,
    budget.tokensPerMinute !== undefined && `${budget.tokensPerMinute} tokens/min`,
    budget.maxInFlight !== undefined && `${budget.maxInFlight} in flight`,
  ].filter(Boolean);
  return [
    `  ${"rate limits".padEnd(13)} shared by the fleet: ${parts.length > 0 ? parts.join(", ") : "none configured"}; lowered to what the provider's headers say`,
  ];
}

const LEARNED: readonly [RateDimension, string][] = [
  ["requests", "requests"],
  ["inputTokens", "input tokens"],
  ["outputTokens", "output tokens"],
  ["tokens", "tokens"],
];

/** What the provider's headers taught the fleet about the model, and the fleet's use of its budget, as the limiter keeps them in Redis. */
function learnedLines(fleet: FleetRateReading | undefined, provider: string, model: string): string[] {
  const label = (name: string) => `  ${name.padEnd(13)}`;
  if (!fleet) return [];
  if ("unread" in fleet) return [`${label("learned")} not read: ${fleet.unread}; the configured limits only`];
  const budget = fleet.budgets.find((candidate) => candidate.provider === provider && candidate.model === model);
  if (!budget) return [`${label("learned")} nothing yet: no call to the model has drawn from the fleet's budget`];
  const said = LEARNED.flatMap(([dimension, name]) => {
    const learned = budget.learned[dimension];
    if (!learned) return [];
    const left = learned.remaining === undefined ? "" : ` (${learned.remaining} left)`;
    return [learned.limit === undefined ? `${learned.remaining} ${name} left` : `${learned.limit} ${name}/min${left}`];
  });
  const paused = budget.pausedUntil ? `, paused until ${new Date(budget.pausedUntil).toISOString()}` : "";
  return [
    `${label("learned")} ${said.length > 0 ? `from the provider's headers: ${said.join(", ")}` : "the provider's headers have stated no limit yet"}`,
    `${label("fleet")} ${budget.granted} granted, ${budget.inFlight} in flight, ${budget.waiting} waiting, ${budget.waits} waited (${Number((budget.waitedMs / 1000).toFixed(1))} s in all), ${budget.rateLimited} answered 429${paused}`,
  ];
}
