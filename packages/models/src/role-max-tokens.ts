import type { ProviderConfig, RoleModelConfig } from "./model-config.ts";
import { defaultMaxTokens } from "./adapter-settings.ts";
import { modelEntryFor } from "./catalogue/model-catalogue.ts";

/**
 * The output tokens one call of a role may take, as its adapter will send
 * them: the role's `maxTokens`, else the catalogue's default for its model,
 * else the adapters' default. A step reserves this much before each call.
 */
export function roleMaxTokens(
  providers: Readonly<Record<string, ProviderConfig>>,
  role: Pick<RoleModelConfig, "provider" | "model" | "maxTokens">,
): number {
  const kind = providers[role.provider]?.kind;
  return role.maxTokens ?? (kind ? modelEntryFor(kind, role.model)?.defaultMaxTokens : undefined) ?? defaultMaxTokens;
}
