import type { SecretReader } from "../tools/define-tool.ts";

/** A SecretReader that can also list its values, so a Redactor can remove them. */
export interface EnumerableSecretReader extends SecretReader {
  names(): string[];
  values(): string[];
}

/**
 * Secrets from environment variables, restricted to the names a deployment
 * lists: a tool asking for `HOME` or `AWS_SECRET_ACCESS_KEY` that is not
 * listed gets nothing.
 */
export function envSecretReader(names: readonly string[], env: NodeJS.ProcessEnv = process.env): EnumerableSecretReader {
  const secrets = new Map<string, string>();
  for (const name of names) {
    const value = env[name];
    if (value) secrets.set(name, value);
  }
  return {
    get: (name) => secrets.get(name),
    names: () => [...secrets.keys()].sort(),
    values: () => [...secrets.values()],
  };
}

export const noSecrets: SecretReader = { get: () => undefined };
