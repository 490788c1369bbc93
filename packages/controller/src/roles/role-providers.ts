import { ReinError, type Role } from "@rein/contracts";
import { checkProviderReachable, type ModelProvider, priceFor } from "@rein/models";
import type { ReinConfig } from "@rein/runtime";
import { createProvider } from "@rein/models/providers";
import type { RateLimiter } from "@rein/models/rate-limit";

/**
 * The provider a role uses, from `roles.<role>` and `providers.<name>`. A goal's
 * override (provider name and model) wins over the config.
 */
export function providerForRole(
  config: ReinConfig,
  role: Role,
  env: Readonly<Record<string, string | undefined>> = process.env,
  override?: { provider: string; model?: string },
  /** The fleet's shared rate budget, for providers whose config sets `limits`. */
  rateLimiter?: RateLimiter,
): ModelProvider {
  const roleConfig = {
    ...config.roles[role],
    ...(override ? { provider: override.provider, ...(override.model ? { model: override.model } : {}) } : {}),
  };
  const providerConfig = config.providers[roleConfig.provider];
  if (!providerConfig) {
    throw new ReinError(
      "config_invalid",
      `role ${role} names provider "${roleConfig.provider}", which is not configured; expected one of: ${Object.keys(config.providers).join(", ")}`,
    );
  }
  return createProvider(roleConfig.provider, providerConfig, roleConfig, env, {
    price: priceFor(config.prices, roleConfig.provider, roleConfig.model, providerConfig.kind),
    ...(rateLimiter ? { rateLimiter } : {}),
  });
}

/** The resolved role → provider/model table that `rein models` prints. */
export function roleTable(config: ReinConfig): { role: Role; provider: string; kind: string; model: string; baseURL: string }[] {
  return (["planner", "worker", "evaluator", "judge"] as const).map((role) => {
    const roleConfig = config.roles[role];
    const providerConfig = config.providers[roleConfig.provider];
    return {
      role,
      provider: roleConfig.provider,
      kind: providerConfig?.kind ?? "(unknown)",
      model: roleConfig.model,
      baseURL: providerConfig?.baseURL ?? "",
    };
  });
}

/**
 * Fails fast when a provider a role uses is not there: every configured
 * endpoint the roles name is probed once, in parallel, and the first that
 * does not answer ends the command with one message naming it.
 */
export async function checkRoleProviders(config: ReinConfig): Promise<void> {
  const names = new Set(Object.values(config.roles).map((role) => role.provider));
  await Promise.all(
    [...names].flatMap((name) => {
      const providerConfig = config.providers[name];
      return providerConfig ? [checkProviderReachable(name, providerConfig)] : [];
    }),
  );
}
