import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { z } from "zod";
import type { ProviderFailure } from "../errors-classify.ts";
import { sdkFailure } from "../sdk-failure.ts";

// Lenient on purpose: a proxy's or a compatible server's body that says less, or says it otherwise, still classifies.
const said = z.string().optional().catch(undefined);
const AnthropicErrorBody = z
  .object({
    error: z
      .object({ type: said, message: said, details: z.object({ error_code: said }).optional().catch(undefined) })
      .optional()
      .catch(undefined),
    request_id: said,
  })
  .catch({});

/**
 * Reads an Anthropic SDK error as a neutral failure. Anthropic's error body is
 * `{type: "error", error: {type, message, details?: {error_code}}, request_id}`,
 * in a response and in a stream's `error` event alike; the request id is in
 * the `request-id` header too, but not every proxy passes headers on.
 */
export function anthropicFailure(error: unknown): ProviderFailure | undefined {
  return sdkFailure(error, { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError }, (apiError) => {
    const body = AnthropicErrorBody.parse(apiError.error);
    return {
      message: body.error?.message,
      errorType: apiError.type ?? body.error?.type,
      errorCode: apiError.errorCode ?? body.error?.details?.error_code,
      requestId: body.request_id,
    };
  });
}
