import type { Price } from "../config/config.ts";
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
  /** Used when a request sets no `maxTokens`. @defaultValue 4096 */
  maxTokens?: number;
  temperature?: number;
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

/** What every adapter asks of each request by default: the settings' model, their max tokens (or the default) and their temperature when set. */
export function requestDefaults(settings: AdapterSettings): { model: string; maxTokens: number; temperature?: number } {
  return { model: settings.model, maxTokens: settings.maxTokens ?? defaultMaxTokens, ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}) };
}
