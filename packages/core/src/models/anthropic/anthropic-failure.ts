import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { innermostCause, isNetworkError, type ProviderFailure } from "../errors-classify.ts";
import { z } from "zod";
import { StreamEndedEarlyError } from "../stream-ended-early.ts";

// Read leniently: a field of another shape (a proxy's body, a plain-text error) is left out, never trusted.
const text = z.string().optional().catch(undefined);
const AnthropicErrorBody = z
  .object({
    error: z.object({ type: text, message: text, details: z.object({ error_code: text }).optional().catch(undefined) }).optional().catch(undefined),
    request_id: text,
  })
  .catch({});

/**
 * Reads an Anthropic SDK error as a neutral failure. Anthropic's error body is
 * `{type: "error", error: {type, message, details?: {error_code}}, request_id}`,
 * in a response and in a stream's `error` event alike; the request id is in
 * the `request-id` header too, but not every proxy passes headers on.
 * Aborts are not failures: they return undefined and propagate.
 */
export function anthropicFailure(error: unknown): ProviderFailure | undefined {
  if (error instanceof APIUserAbortError) return undefined;
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout", message: error.message };
  if (error instanceof APIConnectionError) return connectionFailure(error);
  if (error instanceof StreamEndedEarlyError) return { kind: "stream", message: error.message };
  if (error instanceof APIError) {
    const body = AnthropicErrorBody.parse(error.error);
    const failure: ProviderFailure = { kind: error.status === undefined ? "stream" : "http", message: body.error?.message ?? error.message };
    if (error.status !== undefined) failure.status = error.status;
    if (error.headers) failure.headers = error.headers;
    const errorType = error.type ?? body.error?.type;
    if (errorType) failure.errorType = errorType;
    const errorCode = error.errorCode ?? body.error?.details?.error_code;
    if (typeof errorCode === "string" && errorCode) failure.errorCode = errorCode;
    const requestId = error.requestID ?? body.request_id;
    if (requestId) failure.requestId = requestId;
    return failure;
  }
  // The SDK passes JSON.parse's error through when a stream event is not JSON.
  if (error instanceof SyntaxError) return { kind: "protocol", message: `malformed stream event: ${error.message}` };
  if (isNetworkError(error)) return connectionFailure(error as Error);
  return undefined;
}

function connectionFailure(error: Error): ProviderFailure {
  const cause = innermostCause(error);
  return cause ? { kind: "connection", message: error.message, cause } : { kind: "connection", message: error.message };
}
