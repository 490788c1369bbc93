import type { AdapterSettings } from "../adapter-settings.ts";
import type { Effort } from "../catalogue/model-entry.ts";

/** The role's reasoning effort, only where the catalogue lists it for the model; otherwise none is sent and the model's default holds. */
export function effortFor(settings: AdapterSettings): Effort | undefined {
  const thinking = settings.entry?.thinking;
  if (settings.effort === undefined || thinking?.mode !== "reasoning" || !thinking.efforts.includes(settings.effort)) return undefined;
  return settings.effort;
}

/**
 * The temperature to send: the one `requestDefaults` keeps (the model
 * always takes it), or, for a reasoning model that takes sampling only
 * while it does not reason ("When reasoning effort is not none, remove
 * temperature, top_p, and top_logprobs", Using GPT-6), the role's
 * temperature when the request runs at effort `none`.
 */
export function temperatureFor(settings: AdapterSettings, kept: number | undefined): number | undefined {
  if (kept !== undefined || settings.temperature === undefined) return kept;
  const entry = settings.entry;
  const effort = effortFor(settings) ?? entry?.thinking.defaultEffort;
  return effort === "none" && entry?.samplingWhenEffortNone?.includes("temperature") ? settings.temperature : undefined;
}
