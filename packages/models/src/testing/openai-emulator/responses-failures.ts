import type { FakeReply } from "../fake-model-server.ts";
import { openAIWireFailure, type WireFailure } from "../wire-failures.ts";
import { sseFrame } from "../wire-reply.ts";

const opened = (sequence: number) =>
  sseFrame(
    {
      type: "response.created",
      sequence_number: sequence,
      response: {
        id: "resp_failing",
        object: "response",
        created_at: 1_796_000_000,
        status: "in_progress",
        model: "m",
        output: [],
        usage: null,
        error: null,
        incomplete_details: null,
      },
    },
    "response.created",
  );

/**
 * A failure as the Responses API reports it. HTTP failures have the same
 * body as on every endpoint (`{error: {message, type, param, code}}`); a
 * failure after the stream opened is an `error` event
 * (`{type: "error", code, message, param, sequence_number}`, streaming
 * events reference).
 */
export function openAIResponsesWireFailure(failure: WireFailure): FakeReply {
  if (failure !== "stream_error") return openAIWireFailure(failure);
  return {
    sse:
      opened(0) +
      sseFrame(
        {
          type: "error",
          sequence_number: 1,
          code: "server_error",
          message: "The server had an error while processing your request.",
          param: null,
        },
        "error",
      ),
    headers: { "x-request-id": "req_fail" },
  };
}

/**
 * A stream that ends in `response.failed`, the response's `error` saying
 * why (`{code, message}`, and its original `type` where recorded).
 */
export function openAIResponseFailedStream(error: { code: string; message: string; type?: string }): FakeReply {
  const response = {
    id: "resp_failed",
    object: "response",
    created_at: 1_796_000_000,
    status: "failed",
    model: "m",
    output: [],
    usage: null,
    incomplete_details: null,
    error,
  };
  return {
    sse: opened(0) + sseFrame({ type: "response.failed", sequence_number: 1, response }, "response.failed"),
    headers: { "x-request-id": "req_failed" },
  };
}
