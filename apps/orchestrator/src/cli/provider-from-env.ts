import type { ReinConfigInput } from "@rein/core";

const DEFAULT_MODELS = { anthropic: "claude-sonnet-4-5", openai: "gpt-4.1-mini" } as const;

/**
 * With no config file, an API key in the environment picks a real provider
 * for every role (REIN_MODEL names the model); without one, `rein run` uses
 * the example's offline models.
 */
export function providerFromEnv(env: Readonly<Record<string, string | undefined>>): { overrides: ReinConfigInput; description: string } | undefined {
  const kind = env.ANTHROPIC_API_KEY ? "anthropic" : env.OPENAI_API_KEY ? "openai" : undefined;
  if (!kind) return undefined;
  const apiKeyEnv = kind === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  const model = env.REIN_MODEL || DEFAULT_MODELS[kind];
  const role = { provider: kind, model };
  return {
    overrides: { providers: { [kind]: { kind, apiKeyEnv } }, roles: { planner: role, worker: role, evaluator: role, judge: role } },
    description: `${kind} (${apiKeyEnv}) with model ${model} for every role; set REIN_MODEL or pass --config to choose`,
  };
}
