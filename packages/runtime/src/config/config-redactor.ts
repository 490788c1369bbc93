import { Redactor, SecretBindings } from "@rein/guard";
import type { ReinConfig } from "./config.ts";

/** The variable a provider's key is read from, as `createProvider` reads it. */
export function apiKeyEnvOf(provider: ReinConfig["providers"][string]): string | undefined {
  if (provider.apiKeyEnv) return provider.apiKeyEnv;
  if (provider.kind === "anthropic") return "ANTHROPIC_API_KEY";
  if (provider.kind === "openai") return "OPENAI_API_KEY";
  return undefined;
}

/**
 * The secrets and what each is bound to (config `secrets`) and a Redactor that removes
 * them, every configured provider's API key, built-in PII and config
 * `redaction.patterns`. Provider keys are redacted though no tool can read
 * them: an adapter error or a log line must not carry one either.
 */
export function secretsAndRedactor(config: ReinConfig, env: NodeJS.ProcessEnv): { secrets: SecretBindings; redactor: Redactor } {
  const secrets = SecretBindings.fromEnv(config.secrets, env);
  const apiKeys = Object.values(config.providers).flatMap((provider) => {
    const variable = apiKeyEnvOf(provider);
    const value = variable ? env[variable] : undefined;
    return value ? [value] : [];
  });
  return { secrets, redactor: new Redactor({ secrets: [...secrets.values(), ...apiKeys], patterns: config.redaction.patterns }) };
}
