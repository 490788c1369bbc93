import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { innermostCause, isNetworkError, type ProviderFailure } from "../errors-classify.ts";
import { z } from "zod";
import { StreamEndedEarlyError } from "../stream-ended-early.ts";

// Read leniently: a field of another shape (Ollama's plain-string error, a proxy's body) is left out, never trusted.
const text = z.string().optional().catch(undefined);
const OpenAIErrorBody = z.object({ message: text, request_id: text }).catch({});

/**
 * Reads an OpenAI SDK error as a neutral failure. The SDK keeps only the
 * body's inner `error` object (`{message, type, code}`), and raises a stream
 * chunk carrying `error` as an APIError without a status. Compatible
 * servers behind proxies that drop `x-request-id` may put a `request_id` in
 * that object. Aborts are not failures: they return undefined and propagate.
 */
export function openAIFailure(error: unknown): ProviderFailure | undefined {
  if (error instanceof APIUserAbortError) return undefined;
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout", message: error.message };
  if (error instanceof APIConnectionError) return connectionFailure(error);
  if (error instanceof StreamEndedEarlyError) return { kind: "stream", message: error.message };
  if (error instanceof APIError) {
    const body = OpenAIErrorBody.parse(error.error);
    const failure: ProviderFailure = { kind: error.status === undefined ? "stream" : "http", message: body.message ?? error.message };
    if (error.status !== undefined) failure.status = error.status;
    if (error.headers) failure.headers = error.headers;
    if (typeof error.type === "string" && error.type) failure.errorType = error.type;
    if (typeof error.code === "string" && error.code) failure.errorCode = error.code;
    const requestId = error.requestID ?? body.request_id;
    if (requestId) failure.requestId = requestId;
    return failure;
  }
  if (error instanceof SyntaxError) return { kind: "protocol", message: error.message };
  if (isNetworkError(error)) return connectionFailure(error as Error);
  return undefined;
}

function connectionFailure(error: Error): ProviderFailure {
  const cause = innermostCause(error);
  return cause ? { kind: "connection", message: error.message, cause } : { kind: "connection", message: error.message };
}
