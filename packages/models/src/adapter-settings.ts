import type { Price } from "./model-config.ts";
import type { Effort, ModelEntry } from "./catalogue/model-entry.ts";
import type { RetryPolicy } from "./retry.ts";

/** What every HTTP adapter is built from; `createProvider` fills it from config. */
export interface AdapterSettings {
  /** The configured provider name, reported in responses and errors. */
  name: string;
  model: string;
  /** The key itself. It is sent to the provider and never put in an error or log. */
  apiKey?: string;
  /** Default: the provider's public API. Given explicitly so an SDK's own environment variables never redirect Rein. */
  baseURL?: string;
  /** Used when a request sets no `maxTokens`. @defaultValue the catalogue entry's `defaultMaxTokens`, else 4096 */
  maxTokens?: number;
  /** Sent only where `entry` says the model accepts it; config checks that at startup. */
  temperature?: number;
  /** Sent only where `entry` lists it among the model's efforts. */
  effort?: Effort;
  /**
   * What the model catalogue knows of `model`: which API, how structured
   * output is asked for, thinking, sampling, limits. Absent for a model it
   * does not know (a compatible server's), whose requests stay plain.
   */
  entry?: ModelEntry;
  /** Per attempt. @defaultValue 120_000 */
  timeoutMs?: number;
  /** @defaultValue { maxRetries: 4 } */
  retry?: RetryPolicy;
  /** When given, responses carry `usage.costUsd`. */
  price?: Price;
}

export const defaultMaxTokens = 4096;
export const defaultTimeoutMs = 120_000;
export const defaultRetryPolicy: RetryPolicy = { maxRetries: 4 };

/**
 * What every adapter asks of each request by default: the settings' model,
 * their max tokens (else the catalogue's, else the default), and their
 * temperature only when the catalogue does not refuse it.
 */
export function requestDefaults(settings: AdapterSettings): { model: string; maxTokens: number; temperature?: number } {
  const temperatureAccepted = settings.entry === undefined || settings.entry.sampling.includes("temperature");
  return {
    model: settings.model,
    maxTokens: settings.maxTokens ?? settings.entry?.defaultMaxTokens ?? defaultMaxTokens,
    ...(settings.temperature !== undefined && temperatureAccepted ? { temperature: settings.temperature } : {}),
  };
}
