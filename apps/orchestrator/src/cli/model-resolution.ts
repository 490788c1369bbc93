import { ReinError, Role } from "@rein/contracts";
import { loadConfig, type ReinConfig, type ReinConfigInput } from "@rein/runtime";
import type { LoadedExample } from "../examples/load-example.ts";
import { providerFromEnv } from "./provider-from-env.ts";

/** An example run offline: its deployment config, and every role playing the example's script. */
export function scriptedOverrides(example: LoadedExample): ReinConfigInput {
  const role = { provider: "scripted", model: "scripted-1" };
  return {
    ...example.config,
    providers: { scripted: { kind: "scripted", script: example.scriptPath } },
    roles: { planner: role, worker: role, evaluator: role, judge: role },
  };
}

export interface ModelResolution {
  /** Config overrides that pick the models; absent when the config's own roles are used. */
  overrides?: ReinConfigInput;
  /**
   * The example's own config (its policy) that the run applies: absent
   * when there is no example, or when an explicit `--config` that names
   * models is the deployment. A replay applies the same.
   */
  deployment?: ReinConfigInput;
  /** One line for people: where the models come from. */
  source: string;
  /** Every role plays an example's script. */
  offline: boolean;
  /** No model at all: only an example's script could run, and there is none. */
  missing: boolean;
}

export const NO_MODEL_HELP =
  "no model is configured; expected one of: ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment " +
  "(with OPENAI_BASE_URL for an OpenAI-compatible server; REIN_MODEL picks the model), " +
  "or providers and roles in rein.config.json / --config FILE (`rein config schema` lists the keys); " +
  "`rein run --example bugfix` runs offline with scripted models";

/**
 * The models `rein run` uses, decided once for `rein run` and `rein models`
 * alike: roles the config names win; else an API key in the environment
 * picks a provider for every role; else an example plays its script; else
 * there is no model, which `rein run` refuses to start with.
 */
export function resolveModels(options: { configFile?: string; env?: NodeJS.ProcessEnv; example?: LoadedExample }): ModelResolution {
  const env = options.env ?? process.env;
  const config = loadConfig({ file: options.configFile, env });
  // An explicit --config is the deployment; otherwise an example's own config supplies its policy.
  const deployment = options.example && !options.configFile ? options.example.config : undefined;
  if (configuresModels(config)) {
    return {
      overrides: deployment,
      deployment,
      source: `models from ${options.configFile ?? "rein.config.json and REIN_<ROLE>_PROVIDER / _MODEL"}`,
      offline: false,
      missing: false,
    };
  }
  const fromKey = providerFromEnv(env);
  if (fromKey)
    return {
      overrides: { ...deployment, ...fromKey.overrides },
      deployment,
      source: `using ${fromKey.description}`,
      offline: false,
      missing: false,
    };
  if (options.example) {
    return {
      overrides: scriptedOverrides(options.example),
      deployment: options.example.config,
      source: `offline: every role plays ${options.example.name}'s scripted model (set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --config, to use a real one)`,
      offline: true,
      missing: false,
    };
  }
  return { source: NO_MODEL_HELP, offline: false, missing: true };
}

/** The resolution `rein run` can start with, or the error that says how to configure a model. */
export function requireModels(resolution: ModelResolution): ModelResolution {
  if (resolution.missing) throw new ReinError("config_invalid", NO_MODEL_HELP);
  return resolution;
}

/** A role names a real provider, or a scripted one with its own script; the built-in default (a script of nothing) does not count. */
function configuresModels(config: ReinConfig): boolean {
  return Role.options.some((role) => {
    const provider = config.providers[config.roles[role].provider];
    return provider !== undefined && !(provider.kind === "scripted" && !provider.script);
  });
}
