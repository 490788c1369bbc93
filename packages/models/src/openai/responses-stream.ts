import type { Response, ResponseError, ResponseOutputItem, ResponseStreamEvent } from "openai/resources/responses/responses";
import type { ModelStreamEvent } from "../model-provider.ts";
import { StreamEndedEarlyError } from "../stream-ended-early.ts";

/**
 * A response that ended `failed`: its `error` says why (`code`, `message`,
 * and the original error `type` where one was recorded).
 */
export class ResponseFailedError extends Error {
  readonly code: string;
  readonly type: string | undefined;

  constructor(error: Pick<ResponseError, "code" | "message" | "type"> | null | undefined) {
    super(error?.message ?? "the response failed without saying why");
    this.name = "ResponseFailedError";
    this.code = error?.code ?? "server_error";
    this.type = error?.type ?? undefined;
  }
}

/**
 * Collects a streamed response (streaming events reference). Deltas are
 * reported as they arrive: reasoning summaries as `thinking_delta`, text as
 * `text_delta`, a call's arguments as `tool_call_delta` under its call id.
 * The answer is the response `response.completed` or `response.incomplete`
 * carries, its items taken from `response.output_item.done` where the
 * final response leaves them out (an added item's encrypted reasoning may
 * be incomplete; the done item's is whole). A `response.failed` is a
 * failure; a stream that closes before any of the three was cut.
 */
export class ResponsesStreamAssembler {
  private final: Response | undefined;
  private readonly done = new Map<number, ResponseOutputItem>();
  private readonly calls = new Map<string, { callId: string; name: string }>();

  constructor(private readonly onEvent?: (event: ModelStreamEvent) => void) {}

  accept(event: ResponseStreamEvent): void {
    switch (event.type) {
      case "response.output_item.added":
        if (event.item.type === "function_call")
          this.calls.set(event.item.id ?? event.item.call_id, { callId: event.item.call_id, name: event.item.name });
        return;
      case "response.reasoning_summary_text.delta":
        if (event.delta) this.onEvent?.({ type: "thinking_delta", text: event.delta });
        return;
      case "response.output_text.delta":
        if (event.delta) this.onEvent?.({ type: "text_delta", text: event.delta });
        return;
      case "response.function_call_arguments.delta": {
        const call = this.calls.get(event.item_id);
        if (call && event.delta) this.onEvent?.({ type: "tool_call_delta", id: call.callId, name: call.name, argumentsDelta: event.delta });
        return;
      }
      case "response.output_item.done":
        this.done.set(event.output_index, event.item);
        return;
      case "response.completed":
      case "response.incomplete":
        this.final = event.response;
        return;
      case "response.failed":
        throw new ResponseFailedError(event.response.error);
      default:
        return;
    }
  }

  /** The finished response, once the stream has closed. */
  finish(): Response {
    if (!this.final) throw new StreamEndedEarlyError("the stream closed before response.completed: the reply was cut off");
    if (this.final.output?.length) return this.final;
    return { ...this.final, output: [...this.done.entries()].sort(([a], [b]) => a - b).map(([, item]) => item) };
  }
}
