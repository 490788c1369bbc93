import type { FakeReply } from "./fake-model-server.ts";
import { sseFrame } from "./wire-reply.ts";

/** The ways a provider fails that every adapter must classify alike. */
export type WireFailure =
  | "rate_limited"
  | "overloaded"
  | "server_error"
  | "authentication"
  | "invalid_request"
  | "quota_exhausted"
  | "context_length_exceeded"
  | "connection_reset"
  | "stream_error";

/**
 * A failure in the Messages API's documented shape: `{type: "error",
 * error: {type, message, details?}, request_id}` with the `request-id`
 * header; a spend limit is a 429 whose `details.error_code` says so; a
 * stream error is an `error` event after the stream opened with a 200.
 */
export function anthropicWireFailure(failure: WireFailure): FakeReply {
  const body = (type: string, message: string, details?: Record<string, unknown>) => ({
    type: "error",
    error: { type, message, ...(details ? { details } : {}) },
    request_id: "req_fail",
  });
  const headers = { "request-id": "req_fail" };
  switch (failure) {
    case "rate_limited":
      return {
        status: 429,
        json: body("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
        headers: { ...headers, "retry-after": "1" },
      };
    case "overloaded":
      return { status: 529, json: body("overloaded_error", "Overloaded"), headers };
    case "server_error":
      return { status: 500, json: body("api_error", "Internal server error"), headers };
    case "authentication":
      return { status: 401, json: body("authentication_error", "invalid x-api-key"), headers };
    case "invalid_request":
      return { status: 400, json: body("invalid_request_error", "messages: at least one message is required"), headers };
    case "quota_exhausted":
      return { status: 429, json: body("rate_limit_error", "Request rejected.", { error_code: "enforced_spend_limit_reached" }), headers };
    case "context_length_exceeded":
      return { status: 400, json: body("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"), headers };
    case "connection_reset":
      return { reset: true };
    case "stream_error":
      return {
        sse:
          sseFrame(
            {
              type: "message_start",
              message: {
                id: "msg_e",
                type: "message",
                role: "assistant",
                model: "m",
                content: [],
                stop_reason: null,
                stop_sequence: null,
                usage: { input_tokens: 1, output_tokens: 1 },
              },
            },
            "message_start",
          ) + sseFrame({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error"),
        headers,
      };
  }
}

/**
 * A failure in Chat Completions' documented shape: `{error: {message, type,
 * param, code}}` with `x-request-id`; spent quota is a 429 with code
 * `insufficient_quota`; a stream error is a chunk carrying `error`.
 */
export function openAIWireFailure(failure: WireFailure): FakeReply {
  const body = (message: string, type: string, code: string | null = null) => ({ error: { message, type, param: null, code } });
  const headers = { "x-request-id": "req_fail" };
  switch (failure) {
    case "rate_limited":
      return {
        status: 429,
        json: body("Rate limit reached for requests", "requests", "rate_limit_exceeded"),
        headers: { ...headers, "retry-after-ms": "500" },
      };
    case "overloaded":
      return { status: 503, json: body("The engine is currently overloaded, please try again later", "server_error"), headers };
    case "server_error":
      return { status: 500, json: body("The server had an error while processing your request.", "server_error"), headers };
    case "authentication":
      return { status: 401, json: body("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"), headers };
    case "invalid_request":
      return { status: 400, json: body("'messages' must contain at least one message.", "invalid_request_error"), headers };
    case "quota_exhausted":
      return {
        status: 429,
        json: body(
          "You exceeded your current quota, please check your plan and billing details.",
          "insufficient_quota",
          "insufficient_quota",
        ),
        headers,
      };
    case "context_length_exceeded":
      return {
        status: 400,
        json: body("This model's maximum context length is 128000 tokens.", "invalid_request_error", "context_length_exceeded"),
        headers,
      };
    case "connection_reset":
      return { reset: true };
    case "stream_error":
      return {
        sse:
          sseFrame({
            id: "c",
            object: "chat.completion.chunk",
            created: 1,
            model: "m",
            choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
          }) +
          sseFrame({
            error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null },
          }),
        headers,
      };
  }
}

/**
 * The same streamed reply cut where a proxy or a dying server would cut
 * it: every frame up to the one that would have said the reply ended
 * (`message_delta`, a chunk with a finish reason, or Responses'
 * `response.completed` / `response.incomplete`), then a clean close.
 */
export function cutStream(reply: FakeReply): FakeReply {
  if (!("sse" in reply)) throw new Error("cutStream needs a streamed reply; send the request with a stream");
  const frames = reply.sse.split("\n\n").filter((frame) => frame.length > 0);
  const end = frames.findIndex((frame) => /"type":"message_delta"|"finish_reason":"|"type":"response\.(completed|incomplete)"/.test(frame));
  const kept = end < 0 ? frames : frames.slice(0, end);
  return { ...reply, sse: kept.map((frame) => `${frame}\n\n`).join("") };
}
