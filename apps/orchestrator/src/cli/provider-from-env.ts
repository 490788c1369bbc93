import { recommendedModelFor } from "@rein/models";
import type { ReinConfigInput } from "@rein/runtime";

/**
 * With no config file, an API key in the environment picks a real provider
 * for every role, with the model catalogue's recommended model for it
 * (REIN_MODEL names another); without one, `rein run` uses the example's
 * offline models.
 */
export function providerFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): { overrides: ReinConfigInput; description: string } | undefined {
  const kind = env.ANTHROPIC_API_KEY ? "anthropic" : env.OPENAI_API_KEY ? "openai" : undefined;
  if (!kind) return undefined;
  const apiKeyEnv = kind === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  const model = env.REIN_MODEL || recommendedModelFor(kind);
  const role = { provider: kind, model };
  return {
    overrides: { providers: { [kind]: { kind, apiKeyEnv } }, roles: { planner: role, worker: role, evaluator: role, judge: role } },
    description: `${kind} (${apiKeyEnv}) with model ${model} for every role; set REIN_MODEL or pass --config to choose`,
  };
}
