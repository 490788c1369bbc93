import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { isNetworkError, type ProviderFailure } from "../errors-classify.ts";

/**
 * Reads an OpenAI SDK error as a neutral failure. The SDK keeps only the
 * body's inner `error` object (`{message, type, code}`), and raises a stream
 * chunk carrying `error` as an APIError without a status. Aborts are not
 * failures: they return undefined and propagate.
 */
export function openAIFailure(error: unknown): ProviderFailure | undefined {
  if (error instanceof APIUserAbortError) return undefined;
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout", message: error.message };
  if (error instanceof APIConnectionError) return { kind: "connection", message: error.message };
  if (error instanceof APIError) {
    const body = (error.error ?? {}) as { message?: unknown };
    const failure: ProviderFailure = {
      kind: error.status === undefined ? "stream" : "http",
      message: typeof body.message === "string" ? body.message : error.message,
    };
    if (error.status !== undefined) failure.status = error.status;
    if (error.headers) failure.headers = error.headers;
    if (typeof error.type === "string" && error.type) failure.errorType = error.type;
    if (typeof error.code === "string" && error.code) failure.errorCode = error.code;
    if (error.requestID) failure.requestId = error.requestID;
    return failure;
  }
  if (error instanceof SyntaxError) return { kind: "protocol", message: error.message };
  if (isNetworkError(error)) return { kind: "connection", message: (error as Error).message };
  return undefined;
}
