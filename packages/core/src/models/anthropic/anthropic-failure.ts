import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { isNetworkError, type ProviderFailure } from "../errors-classify.ts";
import { StreamEndedEarlyError } from "./anthropic-stream.ts";

/**
 * Reads an Anthropic SDK error as a neutral failure. Anthropic's error body is
 * `{type: "error", error: {type, message}}`, in a response and in a stream's
 * `error` event alike. Aborts are not failures: they return undefined and
 * propagate.
 */
export function anthropicFailure(error: unknown): ProviderFailure | undefined {
  if (error instanceof APIUserAbortError) return undefined;
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout", message: error.message };
  if (error instanceof APIConnectionError) return { kind: "connection", message: error.message };
  if (error instanceof StreamEndedEarlyError) return { kind: "connection", message: error.message };
  if (error instanceof APIError) {
    const body = (error.error ?? {}) as { error?: { type?: unknown; message?: unknown } };
    const failure: ProviderFailure = {
      kind: error.status === undefined ? "stream" : "http",
      message: typeof body.error?.message === "string" ? body.error.message : error.message,
    };
    if (error.status !== undefined) failure.status = error.status;
    if (error.headers) failure.headers = error.headers;
    const errorType = error.type ?? (typeof body.error?.type === "string" ? body.error.type : undefined);
    if (errorType) failure.errorType = errorType;
    if (error.errorCode) failure.errorCode = error.errorCode;
    if (error.requestID) failure.requestId = error.requestID;
    return failure;
  }
  if (isNetworkError(error)) return { kind: "connection", message: (error as Error).message };
  return undefined;
}
