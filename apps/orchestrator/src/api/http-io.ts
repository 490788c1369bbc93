import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";

/** A request a route refuses: the HTTP status and a message that says what was expected. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function parse<T>(schema: z.ZodType<T>, value: unknown, where = "body"): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, `${parsed.error.issues[0]?.path.join(".") || where}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export async function readJson(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    // A request without setEncoding yields Buffers; anything else is read as its text.
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += bytes.length;
    if (size > maxBytes) throw new HttpError(413, `the body is over ${maxBytes} bytes`);
    chunks.push(bytes);
  }
  if (size === 0) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "the body is not JSON; expected a JSON object");
  }
}

export function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
