import { ReinError } from "@rein/contracts";
import type { FailureClassification, ProviderFailure } from "./errors-classify.ts";

export interface ModelErrorContext {
  /** The configured provider name, e.g. "anthropic" or "local-ollama". */
  provider: string;
  model: string;
  retries: number;
  /** Values that must never appear in the error (API keys); each is replaced by [REDACTED]. */
  secrets: readonly string[];
  /** The SDK's error, kept as a redacted cause. */
  cause?: unknown;
  /** Why a retryable failure was not retried although retries were left, e.g. a `retry-after` over the cap. */
  stoppedBecause?: string;
}

/**
 * The ReinError a failed call ends in. Everything in it passes through
 * `redact`, because providers echo parts of a bad key back in 401 messages.
 *
 * It is never `retryable`: the adapter has already spent the call's one
 * retry budget, so the queue must not multiply it by its own attempts (a
 * 5-attempt job around a 4-retry call would try 25 times). `details.transient`
 * still says whether the failure was of a kind that passes.
 */
export function modelError(failure: ProviderFailure, classification: FailureClassification, context: ModelErrorContext): ReinError {
  const redact = (text: string): string => redactSecrets(text, context.secrets);
  const what =
    failure.kind === "http" || failure.status !== undefined
      ? `HTTP ${failure.status ?? "?"}`
      : failure.kind === "stream"
        ? "an error event in its stream"
        : failure.kind === "connection"
          ? "a connection error"
          : failure.kind;
  const endpoint = failure.baseURL ? shownURL(failure.baseURL, context.secrets) : undefined;
  const providerMessage = failure.message ? redact(failure.message) : undefined;
  const cause = failure.cause ? redact(failure.cause) : undefined;
  const parts = [
    `model provider "${context.provider}" (model ${context.model}${endpoint ? ` at ${endpoint}` : ""}) failed with ${what}`,
    failure.errorType ? ` ${failure.errorType}` : "",
    providerMessage ? `: ${providerMessage}` : "",
    cause && cause !== providerMessage ? ` (cause: ${cause})` : "",
    failure.requestId ? ` (request ${failure.requestId})` : "",
    context.stoppedBecause
      ? `; ${classification.reason}, not retried: ${context.stoppedBecause}`
      : classification.retryable
        ? `; still ${classification.reason} after ${context.retries} retr${context.retries === 1 ? "y" : "ies"}`
        : `; ${classification.reason}, not retried${classification.serverDecided ? " (the server said so with x-should-retry: false)" : ""}`,
  ];
  return new ReinError("model_error", parts.join(""), {
    retryable: false,
    cause: context.cause === undefined ? undefined : redactedCause(context.cause, context.secrets),
    details: {
      provider: context.provider,
      model: context.model,
      kind: failure.kind,
      reason: classification.reason,
      transient: classification.retryable,
      retries: context.retries,
      ...(endpoint ? { baseURL: endpoint } : {}),
      ...(failure.status !== undefined ? { status: failure.status } : {}),
      ...(failure.errorType ? { errorType: failure.errorType } : {}),
      ...(failure.errorCode ? { errorCode: failure.errorCode } : {}),
      ...(providerMessage ? { providerMessage } : {}),
      ...(cause ? { cause } : {}),
      ...(failure.requestId ? { requestId: failure.requestId } : {}),
      ...(classification.retryAfterMs !== undefined ? { retryAfterMs: classification.retryAfterMs } : {}),
    },
  });
}

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0) result = result.split(secret).join("[REDACTED]");
  }
  return result;
}

/** A base URL fit for an error: no user, password or query (where keys hide), and no configured secret. */
function shownURL(baseURL: string, secrets: readonly string[]): string {
  try {
    const url = new URL(baseURL);
    return redactSecrets(`${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`, secrets);
  } catch {
    return redactSecrets(baseURL, secrets);
  }
}

/**
 * A plain Error standing in for the SDK's: SDK errors carry response bodies
 * and headers that may echo a key, so only the redacted name and message are kept.
 */
function redactedCause(cause: unknown, secrets: readonly string[]): Error {
  const original = cause instanceof Error ? cause : new Error(String(cause));
  const copy = new Error(redactSecrets(original.message, secrets));
  copy.name = original.name;
  return copy;
}
