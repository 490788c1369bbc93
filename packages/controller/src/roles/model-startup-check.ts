import { errorMessage, ReinError, type Role } from "@rein/contracts";
import { assertRoleModels, checkModelLive, type LiveModelCheck, recommendedModelFor, retiredModelFor } from "@rein/models";
import type { ReinConfig } from "@rein/runtime";
import { createProvider } from "@rein/models/providers";
import type { RoleName } from "./start-roles.ts";

/** The model roles each queue role calls: the controller calls none; the evaluator's calls are its judge's. */
const modelRolesOf: Readonly<Record<RoleName, readonly Role[]>> = { control: [], plan: ["planner"], step: ["worker"], evaluate: ["judge"] };

/** The model roles the queue roles `roles` call, in role order. */
export const modelRolesFor = (roles: readonly RoleName[]): Role[] => [...new Set(roles.flatMap((role) => modelRolesOf[role]))];

/**
 * One live call per distinct provider, model and settings among `roles`
 * (four roles on one model make one call), for providers of `kinds`; a
 * role whose provider cannot even be built (no key) fails without a call.
 */
export async function liveCheckRoles(
  config: ReinConfig,
  roles: readonly Role[],
  options: { env?: Readonly<Record<string, string | undefined>>; kinds: readonly string[] },
): Promise<LiveModelCheck[]> {
  const env = options.env ?? process.env;
  const groups = new Map<string, Role[]>();
  for (const role of roles) {
    const choice = config.roles[role];
    if (!options.kinds.includes(config.providers[choice.provider]?.kind ?? "")) continue;
    const key = JSON.stringify([choice.provider, choice.model, choice.effort, choice.temperature, choice.maxTokens]);
    groups.set(key, [...(groups.get(key) ?? []), role]);
  }
  return Promise.all(
    [...groups.values()].map(async (sharing): Promise<LiveModelCheck> => {
      const choice = config.roles[sharing[0] as Role];
      const providerConfig = config.providers[choice.provider];
      if (!providerConfig) throw new ReinError("config_invalid", `provider "${choice.provider}" is not configured`);
      // One retry at most: a start-up check that waits out a minute of backoff helps nobody.
      const checkConfig = { ...providerConfig, maxRetries: Math.min(providerConfig.maxRetries, 1) };
      let provider: ReturnType<typeof createProvider>;
      try {
        provider = createProvider(choice.provider, checkConfig, choice, env);
      } catch (error) {
        return {
          provider: choice.provider,
          model: choice.model,
          roles: sharing,
          status: "failed",
          failure: "key_refused",
          message: errorMessage(error),
        };
      }
      const replacement = retiredModelFor(providerConfig.kind, choice.model)?.successor ?? recommendedModelFor(providerConfig.kind);
      return checkModelLive(provider, {
        roles: sharing,
        keyEnv:
          providerConfig.apiKeyEnv ??
          (providerConfig.kind === "anthropic" ? "ANTHROPIC_API_KEY" : providerConfig.kind === "openai" ? "OPENAI_API_KEY" : undefined),
        ...(replacement && replacement !== choice.model ? { replacement } : {}),
      });
    }),
  );
}

/**
 * The roles' scripted and replayed providers, built from their files as a
 * role would build them: one whose script or recordings are broken is a
 * problem naming the provider's `script` setting and the bad field.
 */
export function providerFileProblems(config: ReinConfig, roles: readonly Role[]): string[] {
  const checked = new Set<string>();
  return roles.flatMap((role) => {
    const choice = config.roles[role];
    const providerConfig = config.providers[choice.provider];
    if (checked.has(choice.provider) || !providerConfig?.script || !["scripted", "replay"].includes(providerConfig.kind)) return [];
    checked.add(choice.provider);
    try {
      createProvider(choice.provider, providerConfig, choice, {});
      return [];
    } catch (error) {
      return [`providers.${choice.provider}.script: ${errorMessage(error)}`];
    }
  });
}

/**
 * What `rein run`, `rein serve` and `rein worker` do before they start a
 * role: every role's settings are checked against the model catalogue (a
 * refused parameter or a retired model stops the command, naming the role
 * and the fix), then the roles this process calls make one live call each
 * when their provider is Anthropic's or OpenAI's own API; a refusal stops
 * the command with its report. Warnings (an unknown model, a model that
 * retires soon, a provider that could not answer now) are said and the
 * command goes on. Compatible servers are only probed for reachability:
 * what they serve is the operator's, and a first call may load a model.
 */
export async function checkModelsAtStart(
  config: ReinConfig,
  options: { roles: readonly RoleName[]; warn: (line: string) => void; env?: Readonly<Record<string, string | undefined>> },
): Promise<void> {
  for (const warning of assertRoleModels(config)) options.warn(`rein: warning: ${warning.message}`);
  const checks = await liveCheckRoles(config, modelRolesFor(options.roles), { env: options.env, kinds: ["anthropic", "openai"] });
  for (const check of checks.filter((found) => found.status === "inconclusive")) options.warn(`rein: warning: ${check.message}`);
  const failed = checks.filter((found) => found.status === "failed");
  if (failed.length > 0) {
    throw new ReinError(
      "config_invalid",
      `the model check before starting failed: ${failed.map((check) => `${check.roles.join(", ")}: ${check.message}`).join("; ")}`,
      {
        details: { checks: failed },
      },
    );
  }
}
