import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { z } from "zod";
import type { ProviderFailure } from "../errors-classify.ts";
import { sdkFailure } from "../sdk-failure.ts";

// Lenient on purpose: a compatible server's body that says less, or says it otherwise, still classifies.
const said = z.string().optional().catch(undefined);
const OpenAIErrorBody = z.object({ message: said, request_id: said }).catch({});

/**
 * Reads an OpenAI SDK error as a neutral failure. The SDK keeps only the
 * body's inner `error` object (`{message, type, code}`), and raises a stream
 * chunk carrying `error` as an APIError without a status. Compatible
 * servers behind proxies that drop `x-request-id` may put a `request_id` in
 * that object.
 */
export function openAIFailure(error: unknown): ProviderFailure | undefined {
  return sdkFailure(error, { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError }, (apiError) => {
    const body = OpenAIErrorBody.parse(apiError.error);
    return { message: body.message, errorType: apiError.type, errorCode: apiError.code ?? undefined, requestId: body.request_id };
  });
}
