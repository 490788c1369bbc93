import type { z } from "zod";

/**
 * A message heard on a pub/sub channel, checked against what its publisher
 * writes: one that is not JSON fails like one of the wrong shape, so a
 * subscriber logs and skips both instead of throwing in its message handler.
 */
export function parseChannelMessage<Schema extends z.ZodType>(schema: Schema, message: string): z.ZodSafeParseResult<z.output<Schema>> {
  return schema.safeParse(jsonOrUndefined(message));
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
