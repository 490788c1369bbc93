/**
 * A stream that closed cleanly but before the reply was finished: no
 * `message_delta` (Anthropic), no finish reason and no usage (OpenAI and
 * compatible servers). What arrived is a truncated reply, never an answer,
 * so the adapter retries it as a stream failure.
 */
export class StreamEndedEarlyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StreamEndedEarlyError";
  }
}
