import { innermostCause, isNetworkError, type ProviderFailure } from "./errors-classify.ts";
import { StreamEndedEarlyError } from "./stream-ended-early.ts";

type ErrorClass<Instance extends Error = Error> = abstract new (...args: never[]) => Instance;

/** What both SDKs' APIError carries besides its body: a status (none for an error inside a stream), headers, a request id. */
export interface SdkApiError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  readonly requestID: string | null | undefined;
}

/**
 * The error classes `@anthropic-ai/sdk` and `openai` both export, under the
 * same names and in the same hierarchy (one generator wrote both). Passed in,
 * not imported, so neither SDK loads before its provider's first call.
 */
export interface SdkErrorClasses<ApiError extends SdkApiError> {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: ErrorClass<ApiError>;
}

/** What an APIError's body says, which each SDK keeps in its own shape. */
export interface ApiErrorDetails {
  message?: string | undefined;
  errorType?: string | undefined;
  errorCode?: string | undefined;
  requestId?: string | undefined;
}

/**
 * Reads an SDK error as a neutral failure, the same way for both SDKs; only
 * where the body keeps its message, type, code and request id is the SDK's
 * own (`details`). Aborts are not failures: they return undefined and
 * propagate, as does anything that is not a provider failure.
 */
export function sdkFailure<ApiError extends SdkApiError>(
  error: unknown,
  classes: SdkErrorClasses<ApiError>,
  details: (error: ApiError) => ApiErrorDetails,
): ProviderFailure | undefined {
  if (error instanceof classes.APIUserAbortError) return undefined;
  if (error instanceof classes.APIConnectionTimeoutError) return { kind: "timeout", message: error.message };
  if (error instanceof classes.APIConnectionError) return connectionFailure(error);
  if (error instanceof StreamEndedEarlyError) return { kind: "stream", message: error.message };
  if (error instanceof classes.APIError) {
    const said = details(error);
    const failure: ProviderFailure = { kind: error.status === undefined ? "stream" : "http", message: said.message ?? error.message };
    if (error.status !== undefined) failure.status = error.status;
    if (error.headers) failure.headers = error.headers;
    if (said.errorType) failure.errorType = said.errorType;
    if (said.errorCode) failure.errorCode = said.errorCode;
    const requestId = error.requestID ?? said.requestId;
    if (requestId) failure.requestId = requestId;
    return failure;
  }
  // Both SDKs pass JSON.parse's error through when a stream event is not JSON.
  if (error instanceof SyntaxError) return { kind: "protocol", message: `malformed stream event: ${error.message}` };
  if (isNetworkError(error)) return connectionFailure(error);
  return undefined;
}

function connectionFailure(error: Error): ProviderFailure {
  const cause = innermostCause(error);
  return cause ? { kind: "connection", message: error.message, cause } : { kind: "connection", message: error.message };
}
