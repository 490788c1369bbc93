import { ReinError } from "../errors.ts";

/**
 * A provider failure in neutral terms, filled by each adapter from its SDK's
 * error. One classification then serves every provider.
 */
export interface ProviderFailure {
  /**
   * `http`: a non-2xx response. `stream`: an error reported inside a stream
   * that started with a 200. `timeout` and `connection`: no usable response.
   * `protocol`: a response the adapter could not make sense of.
   */
  kind: "http" | "stream" | "timeout" | "connection" | "protocol";
  status?: number;
  /** The provider's error type, e.g. "overloaded_error" or "invalid_request_error". */
  errorType?: string;
  /** The provider's error code, e.g. "context_length_exceeded" or "insufficient_quota". */
  errorCode?: string;
  /** The provider's own message. */
  message?: string;
  requestId?: string;
  headers?: Headers;
}

export type FailureReason =
  | "rate_limited"
  | "overloaded"
  | "server_error"
  | "timeout"
  | "connection"
  | "stream_error"
  | "conflict"
  | "quota_exhausted"
  | "context_length_exceeded"
  | "authentication"
  | "permission"
  | "not_found"
  | "invalid_request"
  | "protocol"
  | "unknown";

export interface FailureClassification {
  retryable: boolean;
  reason: FailureReason;
  /** The wait the provider asked for, from `retry-after-ms` or `retry-after`. */
  retryAfterMs?: number;
}

/** Error types inside a 200 stream or a body, mapped to the status they stand for. */
const statusOfErrorType: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  server_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

const quotaPattern = /insufficient_quota|quota|spend(ing)? limit|credit balance|billing/i;
const contextPattern = /prompt is too long|context[_ ]length|maximum context|context window|too many tokens/i;

export function classifyFailure(failure: ProviderFailure, now: () => number = Date.now): FailureClassification {
  const retryAfterMs = failure.headers ? retryAfterOf(failure.headers, now) : undefined;
  const withWait = (reason: FailureReason): FailureClassification =>
    retryAfterMs === undefined ? { retryable: true, reason } : { retryable: true, reason, retryAfterMs };
  const final = (reason: FailureReason): FailureClassification => ({ retryable: false, reason });

  if (failure.kind === "timeout") return withWait("timeout");
  if (failure.kind === "connection") return withWait("connection");
  if (failure.kind === "protocol") return final("protocol");

  const text = `${failure.errorType ?? ""} ${failure.errorCode ?? ""} ${failure.message ?? ""}`;
  if (failure.errorCode === "context_length_exceeded" || contextPattern.test(failure.message ?? "")) {
    return final("context_length_exceeded");
  }
  if (failure.errorType === "billing_error" || failure.errorCode === "insufficient_quota") return final("quota_exhausted");

  const status =
    failure.status ?? (failure.errorType !== undefined ? statusOfErrorType[failure.errorType] : undefined);
  if (status === undefined) {
    // An error event after a 200 with no type we know: the request itself was accepted, so try again.
    return failure.kind === "stream" ? withWait("stream_error") : final("unknown");
  }
  if (status === 429) return quotaPattern.test(text) ? final("quota_exhausted") : withWait("rate_limited");
  if (status === 529) return withWait("overloaded");
  if (status === 408) return withWait("timeout");
  if (status === 409) return withWait("conflict");
  if (status === 504) return withWait("timeout");
  if (status >= 500) return withWait(failure.kind === "stream" && status === 500 ? "stream_error" : "server_error");
  if (status === 401) return final("authentication");
  if (status === 402) return final("quota_exhausted");
  if (status === 403) return final("permission");
  if (status === 404) return final("not_found");
  if (status === 413) return final("context_length_exceeded");
  if (status >= 400) return final("invalid_request");
  return final("unknown");
}

/**
 * The wait a response asks for. `retry-after-ms` (OpenAI, Anthropic) wins
 * over `retry-after`, which is seconds or an HTTP date.
 */
export function retryAfterOf(headers: Headers, now: () => number = Date.now): number | undefined {
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null) {
    const value = Number.parseFloat(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers.get("retry-after");
  if (header === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Number.parseFloat(header) * 1000;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

/** A socket that dies mid-body surfaces from fetch as a TypeError ("terminated") with a code on its cause. */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|UND_ERR_\w+)$/.test(code)) return true;
  return error instanceof TypeError && /terminated|fetch failed|network/i.test(error.message);
}

export interface ModelErrorContext {
  /** The configured provider name, e.g. "anthropic" or "local-ollama". */
  provider: string;
  model: string;
  retries: number;
  /** Values that must never appear in the error (API keys); each is replaced by [REDACTED]. */
  secrets: readonly string[];
  /** The SDK's error, kept as a redacted cause. */
  cause?: unknown;
}

/**
 * The ReinError a failed call ends in. Everything in it passes through
 * `redact`, because providers echo parts of a bad key back in 401 messages.
 */
export function modelError(
  failure: ProviderFailure,
  classification: FailureClassification,
  context: ModelErrorContext,
): ReinError {
  const redact = (text: string): string => redactSecrets(text, context.secrets);
  const what =
    failure.kind === "http" || failure.status !== undefined
      ? `HTTP ${failure.status ?? "?"}`
      : failure.kind === "stream"
        ? "an error event in its stream"
        : failure.kind;
  const providerMessage = failure.message ? redact(failure.message) : undefined;
  const parts = [
    `model provider "${context.provider}" (model ${context.model}) failed with ${what}`,
    failure.errorType ? ` ${failure.errorType}` : "",
    providerMessage ? `: ${providerMessage}` : "",
    failure.requestId ? ` (request ${failure.requestId})` : "",
    classification.retryable
      ? `; still ${classification.reason} after ${context.retries} retr${context.retries === 1 ? "y" : "ies"}`
      : `; ${classification.reason}, not retried`,
  ];
  return new ReinError("model_error", parts.join(""), {
    retryable: classification.retryable,
    cause: context.cause === undefined ? undefined : redactedCause(context.cause, context.secrets),
    details: {
      provider: context.provider,
      model: context.model,
      kind: failure.kind,
      reason: classification.reason,
      retries: context.retries,
      ...(failure.status !== undefined ? { status: failure.status } : {}),
      ...(failure.errorType ? { errorType: failure.errorType } : {}),
      ...(failure.errorCode ? { errorCode: failure.errorCode } : {}),
      ...(providerMessage ? { providerMessage } : {}),
      ...(failure.requestId ? { requestId: failure.requestId } : {}),
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
