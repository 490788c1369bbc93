import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { z } from "zod";
import { type ApprovalSigner, type ApprovalStore, canonicalJson, errorMessage, Goal, ReinError, type ReinRuntime } from "@rein/core";
import { decideApproval } from "../approvals/decide-approval.ts";
import { submitGoal } from "../intake/submit-goal.ts";
import { unavailableMcpServers } from "../mcp/mcp-status-board.ts";
import { DASHBOARD_HTML } from "./dashboard-page.ts";
import { RefusedRequest, RequestGuard } from "./request-guard.ts";

export interface HttpApiOptions {
  runtime: ReinRuntime;
  approvals: ApprovalStore;
  /** Signs the decisions this API takes (the approval private key). */
  approvalSigner: ApprovalSigner;
  knownTools: readonly string[];
  /**
   * Required on every request but the dashboard page, as
   * `Authorization: Bearer <token>`; at least 16 characters. There is no
   * unauthenticated mode.
   */
  token: string;
  /** Origins besides the server's own that may call from a browser (`--allow-origin`). */
  allowedOrigins?: readonly string[];
  /** The `--host` the server binds to, accepted in `Host` when it is a name. */
  bindHost?: string;
  /** Largest request body, in bytes. @defaultValue 1 MiB */
  maxBodyBytes?: number;
}

const Decision = z.object({ approver: z.string().min(1), note: z.string().optional(), reason: z.string().optional() });
const Cancel = z.object({ reason: z.string().min(1).default("cancelled over HTTP") });

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_OF_CODE: Partial<Record<ReinError["code"], number>> = {
  goal_invalid: 400,
  contract_invalid: 400,
  config_invalid: 400,
  not_found: 404,
  workspace_invalid: 409,
  approval_invalid: 409,
  redis_unavailable: 503,
};

/**
 * The HTTP face of Rein: submit goals, read runs, follow a run's trace as
 * Server-Sent Events, decide approvals, cancel. Every body is validated with
 * the same contracts the CLI uses; errors say what was wrong. Every request
 * passes the RequestGuard first (Host, Origin, bearer token, JSON bodies).
 *
 * GET / (the web dashboard) · POST /runs · GET /runs · GET /runs/:id · GET /runs/:id/events (SSE) ·
 * POST /runs/:id/cancel · GET /approvals · POST /approvals/:id/approve · POST /approvals/:id/deny
 */
export function createHttpApi(options: HttpApiOptions): Server {
  const { runtime, approvals } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const guard = new RequestGuard({ token: options.token, allowedOrigins: options.allowedOrigins, bindHost: options.bindHost });

  const routes: [string, RegExp, (request: IncomingMessage, response: ServerResponse, params: string[]) => Promise<void>][] = [
    [
      "POST",
      /^\/runs$/,
      async (request, response) => {
        const body = await readJson(request, maxBodyBytes);
        const goal = Goal.safeParse(body);
        if (!goal.success) throw new HttpError(400, `goal.${goal.error.issues[0]?.path.join(".")}: ${goal.error.issues[0]?.message}`);
        const { runId, state } = await submitGoal(runtime, body as z.input<typeof Goal>, {
          knownTools: options.knownTools,
          unavailableMcp: await unavailableMcpServers(runtime),
        });
        send(response, 202, { runId, status: state.status, events: `/runs/${runId}/events` });
      },
    ],
    ["GET", /^\/runs$/, async (_request, response) => send(response, 200, { runs: await runtime.runs.list(100) })],
    ["GET", /^\/runs\/([\w-]+)$/, async (_request, response, [runId]) => send(response, 200, await runtime.runs.require(runId as string))],
    ["GET", /^\/runs\/([\w-]+)\/events$/, async (request, response, [runId]) => streamEvents(runtime, runId as string, request, response)],
    [
      "POST",
      /^\/runs\/([\w-]+)\/cancel$/,
      async (request, response, [runId]) => {
        const { reason } = parse(Cancel, await readJson(request, maxBodyBytes));
        await runtime.runs.require(runId as string);
        await runtime.queues.sendControl({ type: "run.cancel", eventId: `cancel-${runId}`, runId: runId as string, reason });
        send(response, 202, { runId, cancel: "requested" });
      },
    ],
    ["GET", /^\/approvals$/, async (_request, response) => send(response, 200, { approvals: await approvals.list({ status: "pending" }) })],
    [
      "POST",
      /^\/approvals\/([\w-]+)\/(approve|deny)$/,
      async (request, response, [approvalId, verb]) => {
        const input = parse(Decision, await readJson(request, maxBodyBytes));
        if (verb === "deny" && !input.reason) throw new HttpError(400, "reason: a denial must say why; expected a non-empty string");
        const approval = await decideApproval(runtime, { store: approvals, signer: options.approvalSigner }, approvalId as string, {
          decision: verb === "approve" ? "approved" : "denied",
          approver: `http:${input.approver}`,
          note: input.note,
          reason: input.reason,
        });
        send(response, 200, approval);
      },
    ],
  ];

  return createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const handle = async () => {
      const page = request.method === "GET" && url.pathname === "/";
      if (request.method === "OPTIONS") return preflight(guard, request, response);
      // The page itself holds nothing; every request it makes carries the token.
      guard.check(request, { needsToken: !page });
      const cors = guard.corsOrigin(request);
      if (cors) response.setHeader("access-control-allow-origin", cors);
      if (page) {
        response.writeHead(200, {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-ancestors 'none'",
          "referrer-policy": "no-referrer",
        });
        response.end(DASHBOARD_HTML);
        return;
      }
      for (const [method, pattern, handler] of routes) {
        const match = pattern.exec(url.pathname);
        if (match && request.method === method) return handler(request, response, match.slice(1));
      }
      throw new HttpError(404, `no route ${request.method} ${url.pathname}`);
    };
    response.setHeader("x-content-type-options", "nosniff");
    response.setHeader("cache-control", "no-store");
    handle().catch((error: unknown) => {
      const known = error instanceof HttpError || error instanceof RefusedRequest;
      const status = known ? error.status : ReinError.isInstance(error) ? (STATUS_OF_CODE[error.code] ?? 500) : 500;
      if (status === 500) runtime.logger.error({ err: error }, "http api error");
      if (!response.headersSent) send(response, status, { error: known ? error.message : errorMessage(error) });
      else response.end();
    });
  });
}

/**
 * Only an origin given with --allow-origin gets a CORS preflight answer; a
 * page anywhere else cannot send the JSON or Authorization a route needs.
 */
function preflight(guard: RequestGuard, request: IncomingMessage, response: ServerResponse): void {
  guard.checkSource(request);
  const origin = guard.corsOrigin(request);
  if (!origin) throw new RefusedRequest(403, `Origin ${request.headers.origin ?? "(none)"} may not call this API; expected an origin given with --allow-origin`);
  response.writeHead(204, {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": "GET, POST",
    "access-control-allow-headers": "authorization, content-type",
    "access-control-max-age": "600",
    vary: "origin",
  });
  response.end();
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, `${parsed.error.issues[0]?.path.join(".") || "body"}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

async function readJson(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new HttpError(413, `the body is over ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "the body is not JSON; expected a JSON object");
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/**
 * The run's trace as Server-Sent Events, from the first event, until the
 * client leaves; interleaved with the live channel's model output as
 * `event: live` frames without an id (they are not replayable, and a
 * `retry` among them voids the partial text of that role's call).
 */
async function streamEvents(runtime: ReinRuntime, runId: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  await runtime.runs.require(runId);
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const controller = new AbortController();
  request.on("close", () => controller.abort());
  const live = await runtime.live.subscribe(runId, (event) => response.write(`event: live\ndata: ${JSON.stringify(event)}\n\n`));
  try {
    for await (const event of runtime.trace.follow(runId, controller.signal)) {
      response.write(`id: ${event.seq}\nevent: ${event.kind}\ndata: ${canonicalJson(event)}\n\n`);
    }
  } finally {
    await live.close();
  }
  response.end();
}
