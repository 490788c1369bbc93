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
  /** The endpoint the adapter called, named in the error so a wrong base URL is obvious. */
  baseURL?: string;
  /** The innermost cause of a connection failure, e.g. "connect ECONNREFUSED 127.0.0.1:11434". */
  cause?: string;
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
  /** The provider's `x-should-retry` header decided, overriding what the status alone says. */
  serverDecided?: boolean;
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

/**
 * Machine-readable codes for money that has run out: Anthropic's
 * `error.details.error_code` and OpenAI's `error.code` / `error.type`. A
 * 429 carrying one of them is a spend limit, not a rate limit: retrying
 * fails until a person raises the limit or the month turns.
 */
const quotaCodePattern = /quota|spend_?limit|usage_?limit|credit_balance|billing/i;
/** The same in prose, for compatible servers that only say it in the message. */
const quotaMessagePattern = /insufficient[_ ]quota|exceeded your current quota|spend(ing)?[_ ]limit|credit balance|billing/i;
const contextPattern = /prompt is too long|context[_ ]length|maximum context|context window|too many tokens/i;

/**
 * Decides whether a failure is worth another attempt. What the body says
 * in machine-readable form (spent quota, a prompt over the context window)
 * is final whatever else the response says. Otherwise an `x-should-retry`
 * header overrides the status both ways, as the official SDKs obey it;
 * then the status decides: 408, 409, 429 and 5xx are retried.
 */
export function classifyFailure(failure: ProviderFailure, now: () => number = Date.now): FailureClassification {
  const retryAfterMs = failure.headers ? retryAfterOf(failure.headers, now) : undefined;
  const withWait = (reason: FailureReason): FailureClassification =>
    retryAfterMs === undefined ? { retryable: true, reason } : { retryable: true, reason, retryAfterMs };
  const final = (reason: FailureReason): FailureClassification => ({ retryable: false, reason });

  if (failure.kind === "timeout") return withWait("timeout");
  if (failure.kind === "connection") return withWait("connection");
  if (failure.kind === "protocol") return final("protocol");

  if (failure.errorCode === "context_length_exceeded" || contextPattern.test(failure.message ?? "")) {
    return final("context_length_exceeded");
  }
  if (isQuotaFailure(failure)) return final("quota_exhausted");

  const byStatus = classifyByStatus(failure, withWait, final);
  // A stream error carries the headers of the 200 that opened the stream, which said nothing about this failure.
  const header = failure.kind === "http" ? failure.headers?.get("x-should-retry") : undefined;
  if (header === "true") return { ...withWait(byStatus.reason), serverDecided: true };
  if (header === "false") return { ...final(byStatus.reason), serverDecided: true };
  return byStatus;
}

function isQuotaFailure(failure: ProviderFailure): boolean {
  if (failure.errorType === "billing_error" || failure.status === 402) return true;
  if (failure.errorCode !== undefined && quotaCodePattern.test(failure.errorCode)) return true;
  if (failure.errorType !== undefined && quotaCodePattern.test(failure.errorType)) return true;
  const status = failure.status ?? (failure.errorType !== undefined ? statusOfErrorType[failure.errorType] : undefined);
  return status === 429 && quotaMessagePattern.test(failure.message ?? "");
}

function classifyByStatus(
  failure: ProviderFailure,
  withWait: (reason: FailureReason) => FailureClassification,
  final: (reason: FailureReason) => FailureClassification,
): FailureClassification {
  const status = failure.status ?? (failure.errorType !== undefined ? statusOfErrorType[failure.errorType] : undefined);
  if (status === undefined) {
    // An error event after a 200 with no type we know: the request itself was accepted, so try again.
    return failure.kind === "stream" ? withWait("stream_error") : final("unknown");
  }
  if (status === 429) return withWait("rate_limited");
  if (status === 529) return withWait("overloaded");
  if (status === 408) return withWait("timeout");
  if (status === 409) return withWait("conflict");
  if (status === 504) return withWait("timeout");
  if (status >= 500) return withWait(failure.kind === "stream" && status === 500 ? "stream_error" : "server_error");
  if (status === 401) return final("authentication");
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
export function isNetworkError(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|UND_ERR_\w+)$/.test(code)) return true;
  return error instanceof TypeError && /terminated|fetch failed|network/i.test(error.message);
}

/**
 * The innermost cause's message, where a connection failure says what
 * really happened: the SDK says "Connection error.", fetch says "fetch
 * failed", and only the socket error names the address and errno.
 */
export function innermostCause(error: unknown): string | undefined {
  let current: unknown = error;
  let found: string | undefined;
  for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    found = typeof code === "string" && !current.message.includes(code) ? `${code}: ${current.message}` : current.message;
    current = current.cause;
  }
  return found;
}
