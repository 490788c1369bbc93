import type { ProviderFailure } from "../errors-classify.ts";
import { openAIFailure } from "./openai-failure.ts";
import { ResponseFailedError } from "./responses-stream.ts";

/**
 * The error type a Responses failure code stands for, so one
 * classification decides: a server error or a rate limit is worth another
 * attempt, a refused prompt or image is not. Codes from `ResponseError`.
 */
function typeOfCode(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  if (code === "server_error" || code === "vector_store_timeout") return "server_error";
  if (code === "rate_limit_exceeded") return "rate_limit_error";
  return "invalid_request_error";
}

/**
 * Reads a Responses failure as a neutral one: what the SDK raises (HTTP
 * errors, and an `error` event inside a stream, whose body has `type:
 * "error"` and the reason in `code`), and a response that ended `failed`.
 */
export function openAIResponsesFailure(error: unknown): ProviderFailure | undefined {
  if (error instanceof ResponseFailedError) {
    const type = error.type ?? typeOfCode(error.code);
    return { kind: "stream", message: error.message, errorCode: error.code, ...(type ? { errorType: type } : {}) };
  }
  const failure = openAIFailure(error);
  if (failure?.kind === "stream" && failure.errorType === "error") {
    const type = typeOfCode(failure.errorCode);
    if (type) return { ...failure, errorType: type };
    const { errorType: _event, ...rest } = failure;
    return rest;
  }
  return failure;
}
