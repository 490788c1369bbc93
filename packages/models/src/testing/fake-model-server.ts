import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { JsonObject } from "@rein/contracts";

/** One reply the fake server gives, in the order queued. */
export type FakeReply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  /** An SSE body sent in several writes, split at `splitEvery` characters so frames cross write boundaries. */
  | { status?: 200; sse: string; headers?: Record<string, string>; splitEvery?: number }
  /** Drops the connection without a response (ECONNRESET for the client). */
  | { reset: true };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** Computes a reply from the request, for servers that answer a whole conversation rather than a queue. */
export type FakeResponder = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

/**
 * A local HTTP server speaking whatever wire format its queued replies hold,
 * for driving the official SDKs end to end. It records every request it
 * receives so tests can assert what an adapter sent. Queued replies go
 * first; once the queue is empty the responder (if any) answers.
 */
export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  private readonly replies: FakeReply[] = [];
  private server: Server | undefined;
  baseURL = "";

  constructor(private readonly responder?: FakeResponder) {}

  queue(...replies: FakeReply[]): this {
    this.replies.push(...replies);
    return this;
  }

  async start(path = ""): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const body = requestBody(Buffer.concat(chunks).toString("utf8"));
        if (typeof body === "string") {
          // An adapter that sent a body the SDK's server would refuse: a 400 (final) names it in the test's failure.
          response.writeHead(400, { "content-type": "application/json" });
          response.end(JSON.stringify({ error: { type: "invalid_request_error", message: `fake server: ${body}` } }));
          return;
        }
        const recorded: RecordedRequest = { method: request.method ?? "", url: request.url ?? "", headers: request.headers, body };
        this.requests.push(recorded);
        let reply: FakeReply | undefined;
        try {
          reply = this.replies.shift() ?? (await this.responder?.(recorded));
        } catch (error) {
          // A responder that cannot answer is a test bug; a 400 (final, not retried) surfaces it in the test's failure.
          response.writeHead(400, { "content-type": "application/json" });
          response.end(JSON.stringify({ error: { type: "invalid_request_error", message: `fake server: ${(error as Error).message}` } }));
          return;
        }
        if (!reply) {
          response.writeHead(500, { "content-type": "application/json" });
          response.end(JSON.stringify({ error: { type: "api_error", message: "fake server: no reply queued" } }));
          return;
        }
        if ("reset" in reply) {
          request.socket.destroy();
          return;
        }
        if ("json" in reply) {
          response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
          response.end(JSON.stringify(reply.json));
          return;
        }
        response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...reply.headers });
        const size = reply.splitEvery ?? 37;
        for (let start = 0; start < reply.sse.length; start += size) response.write(reply.sse.slice(start, start + size));
        response.end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseURL = `http://127.0.0.1:${port}${path}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A retry policy that records waits instead of sleeping, so tests never wait on the clock. */
export function recordingRetry(maxRetries = 3): {
  policy: { maxRetries: number; sleep: (milliseconds: number) => Promise<void>; random: () => number; now: () => number };
  waits: number[];
} {
  const waits: number[] = [];
  return {
    waits,
    policy: {
      maxRetries,
      sleep: async (milliseconds: number) => {
        waits.push(milliseconds);
      },
      random: () => 0.5,
      now: () => Date.parse("2025-01-01T00:00:00Z"),
    },
  };
}

/** A request's JSON body as an object (empty when there is none), or what is wrong with it. */
function requestBody(text: string): Record<string, unknown> | string {
  if (!text) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return `the request body is not JSON: ${text.slice(0, 80)}`;
  }
  const parsed = JsonObject.safeParse(json);
  return parsed.success ? parsed.data : "the request body is JSON but not an object; expected a JSON object";
}
