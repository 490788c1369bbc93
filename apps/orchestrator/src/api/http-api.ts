import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { z } from "zod";
import { canonicalJson, errorMessage, ReinError } from "@rein/contracts";
import type { ApprovalSigner } from "@rein/signing";
import type { ApprovalStore, ReinRuntime } from "@rein/runtime";
import { approvalQueue } from "../approvals/approval-queue.ts";
import { decideApproval } from "../approvals/decide-approval.ts";
import { replyToRun, type SubmitOptions, submitGoal, unavailableMcpServers } from "@rein/controller";
import { renderMetrics } from "../metrics/metrics-exposition.ts";
import { TraceFold } from "../metrics/trace-fold.ts";
import { loadBundle } from "../trace/trace-bundle.ts";
import { describeCall } from "../trace/views/call-view.ts";
import { buildRunView } from "../trace/views/run-view/build-run-view.ts";
import { type ApiToken, type Caller, roleIncludes, seesRun } from "./api-tokens.ts";
import { visibleOnly, visibleRun, withinScope } from "./caller-scope.ts";
import { dashboardPage } from "./dashboard/dashboard-page.ts";
import { checkHealth, checkReady } from "./health.ts";
import { HttpError, parse, readJson, send } from "./http-io.ts";
import { openApiDocument, withRoles } from "./openapi.ts";
import { queueOverview } from "./queue-overview.ts";
import { RefusedRequest, RequestGuard } from "./request-guard.ts";
import { type Route, route, routeMatcher } from "./route-table.ts";
import { RunFeed, type RunFeedEvent } from "./run-feed.ts";
import { RunLister, RunListQuery } from "./run-summaries.ts";

export interface HttpApiOptions {
  runtime: ReinRuntime;
  approvals: ApprovalStore;
  /** Signs the decisions this API takes (the approval private key). */
  approvalSigner: ApprovalSigner;
  knownTools: readonly string[];
  /**
   * Required on every request but the dashboard page, as
   * `Authorization: Bearer <token>`; at least 16 characters. There is no
   * unauthenticated mode. Its identity is "operator", its role admin;
   * optional when `namedTokens` or `tokens` hold one.
   */
  token?: string;
  /** Tokens in clear by the identity they stand for, each an admin: approvals decided with one are recorded as `http:<identity>`. */
  namedTokens?: Readonly<Record<string, string>>;
  /** Tokens by their sha256, each with its role and the runs it may see (`--tokens-file`). */
  tokens?: readonly ApiToken[];
  /** Origins besides the server's own that may call from a browser (`--allow-origin`). */
  allowedOrigins?: readonly string[];
  /** The `--host` the server binds to, accepted in `Host` when it is a name. */
  bindHost?: string;
  /** Largest request body, in bytes. @defaultValue 1 MiB */
  maxBodyBytes?: number;
  /** The roles this process runs besides the API, reported by `/healthz`. */
  roles?: readonly string[];
  /** How often `/runs/events` looks for changed runs. @defaultValue 1000 */
  feedIntervalMs?: number;
  /** Where `POST /runs` sends a new run's `goal.submitted`: applied here where this process holds the packet key (intakeEvents). @defaultValue the control queue */
  intake?: SubmitOptions["events"];
}

// The approver is the token's identity: a name in the body would be anyone's to claim.
const Decision = z.object({ note: z.string().optional(), reason: z.string().optional() });
const Cancel = z.object({ reason: z.string().min(1).default("cancelled over HTTP") });
const Reply = z.object({ instruction: z.string().trim().min(1, "expected the instruction that answers the escalation") });

// Path parameters, one schema per shape of path; the route table checks each against its path's names.
const NoParams = z.object({});
const RunParams = z.object({ id: z.string() });
const ArtifactParams = z.object({ id: z.string(), artifactId: z.string() });
const CallParams = z.object({ id: z.string(), callId: z.string() });

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
 * The HTTP face of Rein: submit goals, list and read runs, follow a run's
 * trace as Server-Sent Events, read one tool call, answer an escalation,
 * decide approvals, cancel, probe health. Every body is validated with the
 * same contracts the CLI uses; errors say what was wrong. Every request
 * passes the RequestGuard first (Host, Origin, bearer token, JSON bodies).
 * The routes are `apiRoutes`; `/openapi.json` documents each of them.
 */
export function createHttpApi(options: HttpApiOptions): Server {
  const guard = new RequestGuard({
    token: options.token,
    namedTokens: options.namedTokens,
    tokens: options.tokens,
    allowedOrigins: options.allowedOrigins,
    bindHost: options.bindHost,
  });
  const match = routeMatcher(apiRoutes(options));

  return createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const handle = async () => {
      if (request.method === "OPTIONS") return preflight(guard, request, response);
      const found = match(request.method, url.pathname);
      const caller = guard.check(request, { needsToken: !found?.route.public });
      const cors = guard.corsOrigin(request);
      if (cors) response.setHeader("access-control-allow-origin", cors);
      if (!found) throw new HttpError(404, `no route ${request.method} ${url.pathname}`);
      if (caller && !roleIncludes(caller.role, found.route.role)) {
        throw new HttpError(
          403,
          `the token of ${caller.identity} has role ${caller.role}; ${found.route.method} ${found.route.path} needs role ${found.route.role} or above`,
        );
      }
      return found.route.handle(request, response, found.params, url, caller);
    };
    response.setHeader("x-content-type-options", "nosniff");
    response.setHeader("cache-control", "no-store");
    handle().catch((error: unknown) => {
      const known = error instanceof HttpError || error instanceof RefusedRequest;
      const status = known ? error.status : ReinError.isInstance(error) ? (STATUS_OF_CODE[error.code] ?? 500) : 500;
      if (status === 500) options.runtime.logger.error({ err: error }, "http api error");
      if (!response.headersSent) send(response, status, { error: known ? error.message : errorMessage(error) });
      else response.end();
    });
  });
}

/** A probe: its check's report, with 200 when the check is ok and 503 when it is not. */
function probeRoute(path: string, check: () => Promise<{ ok: boolean }>): Route {
  return route({
    method: "GET",
    path,
    params: NoParams,
    handle: async (_request, response) => {
      const report = await check();
      send(response, report.ok ? 200 : 503, report);
    },
  });
}

/** Every route the API serves, in match order. */
export function apiRoutes(options: HttpApiOptions): Route[] {
  const { runtime, approvals } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const roles = options.roles ?? [];
  const runs = new RunLister(runtime);
  const fold = new TraceFold(runtime);
  const feed = new RunFeed(runtime, runs, { intervalMs: options.feedIntervalMs });
  const routes: Route[] = [
    route({
      method: "GET",
      path: "/",
      // The page itself holds nothing; every request it makes carries the token.
      public: true,
      params: NoParams,
      handle: async (_request, response) => {
        const page = dashboardPage();
        response.writeHead(200, {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": page.contentSecurityPolicy,
          "referrer-policy": "no-referrer",
        });
        response.end(page.html);
      },
    }),
    route({
      method: "GET",
      path: "/openapi.json",
      params: NoParams,
      handle: async (_request, response) => send(response, 200, withRoles(openApiDocument(), routes)),
    }),
    route({
      method: "GET",
      path: "/identity",
      params: NoParams,
      handle: async (_request, response, _params, _url, caller) => send(response, 200, caller),
    }),
    probeRoute("/healthz", () => checkHealth(runtime, roles)),
    probeRoute("/readyz", () => checkReady(runtime, roles)),
    route({
      method: "GET",
      path: "/metrics",
      params: NoParams,
      handle: async (_request, response, _params, _url, caller) => {
        if (caller?.runs)
          throw new HttpError(
            403,
            `the token of ${caller.identity} sees only some runs, and the metrics count every run; expected a token not limited to some runs`,
          );
        const metrics = await renderMetrics({ runtime, approvals, runs, fold });
        response.writeHead(200, { "content-type": metrics.contentType });
        response.end(metrics.body);
      },
    }),
    route({
      method: "POST",
      path: "/runs",
      role: "admin",
      params: NoParams,
      handle: async (request, response, _params, _url, caller) => {
        // submitGoal parses the goal; a goal_invalid refusal answers 400.
        const { runId, state } = await submitGoal(runtime, withinScope(caller, await readJson(request, maxBodyBytes)), {
          knownTools: options.knownTools,
          unavailableMcp: await unavailableMcpServers(runtime),
          events: options.intake,
        });
        send(response, 202, { runId, status: state.status, events: `/runs/${runId}/events` });
      },
    }),
    route({
      method: "GET",
      path: "/runs",
      params: NoParams,
      handle: async (_request, response, _params, url, caller) => {
        const query = parse(RunListQuery, Object.fromEntries(url.searchParams), "query");
        send(response, 200, await runs.page(query, caller?.runs ? (state) => seesRun(caller, state.goal) : undefined));
      },
    }),
    route({
      method: "GET",
      path: "/runs/events",
      params: NoParams,
      handle: async (request, response, _params, _url, caller) => streamRunFeed(feed, runs, request, response, caller),
    }),
    route({
      method: "GET",
      path: "/runs/{id}",
      params: RunParams,
      handle: async (_request, response, { id }, _url, caller) => send(response, 200, await visibleRun(runtime, caller, id)),
    }),
    route({
      method: "GET",
      path: "/runs/{id}/events",
      params: RunParams,
      handle: async (request, response, { id }, _url, caller) => {
        await visibleRun(runtime, caller, id);
        await streamEvents(runtime, id, request, response);
      },
    }),
    route({
      method: "GET",
      path: "/runs/{id}/view",
      params: RunParams,
      handle: async (_request, response, { id: runId }, _url, caller) => {
        await visibleRun(runtime, caller, runId);
        // Read before the trace: a call that ends in between is then in the trace, and the view shows it once.
        const inFlight = await runtime.live.calls.read(runId);
        send(response, 200, buildRunView(await loadBundle(runtime, runId), inFlight));
      },
    }),
    route({
      method: "GET",
      path: "/runs/{id}/artifacts/{artifactId}",
      params: ArtifactParams,
      handle: async (_request, response, { id: runId, artifactId }, _url, caller) => {
        await visibleRun(runtime, caller, runId);
        const artifact = await runtime.artifacts.get(artifactId);
        // An artifact is only read through the run that stored it.
        if (!artifact || artifact.runId !== runId)
          throw new HttpError(
            404,
            `run ${runId} has no artifact ${artifactId}; expected an artifactId from its view's calls (artifacts expire with the run's retention)`,
          );
        send(response, 200, artifact);
      },
    }),
    route({
      method: "GET",
      path: "/runs/{id}/calls/{callId}",
      params: CallParams,
      handle: async (_request, response, { id: runId, callId }, _url, caller) => {
        await visibleRun(runtime, caller, runId);
        send(response, 200, { runId, uses: describeCall(await loadBundle(runtime, runId), callId) });
      },
    }),
    route({
      method: "POST",
      path: "/runs/{id}/reply",
      role: "operator",
      params: RunParams,
      handle: async (request, response, { id }, _url, caller) => {
        await visibleRun(runtime, caller, id);
        const { instruction } = parse(Reply, await readJson(request, maxBodyBytes));
        await replyToRun(runtime, id, instruction);
        send(response, 202, { runId: id, reply: "sent" });
      },
    }),
    route({
      method: "POST",
      path: "/runs/{id}/cancel",
      role: "admin",
      params: RunParams,
      handle: async (request, response, { id: runId }, _url, caller) => {
        const { reason } = parse(Cancel, await readJson(request, maxBodyBytes));
        await visibleRun(runtime, caller, runId);
        await runtime.queues.sendControl({ type: "run.cancel", eventId: `cancel-${runId}`, runId, reason });
        send(response, 202, { runId, cancel: "requested" });
      },
    }),
    route({
      method: "GET",
      path: "/approvals",
      params: NoParams,
      handle: async (_request, response, _params, _url, caller) =>
        send(response, 200, { approvals: await visibleOnly(runtime, caller, await approvalQueue(runtime, approvals)) }),
    }),
    route({
      method: "GET",
      path: "/queues",
      params: NoParams,
      handle: async (_request, response) => send(response, 200, await queueOverview(runtime)),
    }),
    ...(["approve", "deny"] as const).map((verb) =>
      route({
        method: "POST",
        path: `/approvals/{id}/${verb}`,
        role: "operator",
        params: RunParams,
        handle: async (request, response, { id }, _url, caller) => {
          const input = parse(Decision, await readJson(request, maxBodyBytes));
          if (verb === "deny" && !input.reason) throw new HttpError(400, "reason: a denial must say why; expected a non-empty string");
          const asked = await approvals.get(id);
          // An approval of a run the token may not see does not exist for it.
          if (!asked || (await visibleOnly(runtime, caller, [asked])).length === 0)
            throw new ReinError("not_found", `approval ${id} does not exist`);
          const approval = await decideApproval(runtime, { store: approvals, signer: options.approvalSigner }, id, {
            decision: verb === "approve" ? "approved" : "denied",
            approver: `http:${caller?.identity}`,
            note: input.note,
            reason: input.reason,
          });
          send(response, 200, approval);
        },
      }),
    ),
  ];
  return routes;
}

/**
 * Only an origin given with --allow-origin gets a CORS preflight answer; a
 * page anywhere else cannot send the JSON or Authorization a route needs.
 */
function preflight(guard: RequestGuard, request: IncomingMessage, response: ServerResponse): void {
  guard.checkSource(request);
  const origin = guard.corsOrigin(request);
  if (!origin)
    throw new RefusedRequest(
      403,
      `Origin ${request.headers.origin ?? "(none)"} may not call this API; expected an origin given with --allow-origin`,
    );
  response.writeHead(204, {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": "GET, POST",
    "access-control-allow-headers": "authorization, content-type",
    "access-control-max-age": "600",
    vary: "origin",
  });
  response.end();
}

/** How often an idle `/runs/events` stream sends a comment, so proxies keep it open. */
const KEEPALIVE_MS = 15_000;

/**
 * Changes to the run list as Server-Sent Events: `counts` first, then
 * `ready` once every change from then on will be sent (read `GET /runs`
 * after it), then `run` (a new or changed run's summary) and `counts`
 * frames from the process's one shared RunFeed until the client leaves.
 */
async function streamRunFeed(
  feed: RunFeed,
  runs: RunLister,
  request: IncomingMessage,
  response: ServerResponse,
  caller: Caller | undefined,
): Promise<void> {
  let left = false;
  let unsubscribe = () => {};
  const keepalive = setInterval(() => response.write(": keepalive\n\n"), KEEPALIVE_MS);
  request.on("close", () => {
    left = true;
    clearInterval(keepalive);
    unsubscribe();
  });
  // A token limited to some runs gets their frames only, and no counts: they count every run.
  const scoped = Boolean(caller?.runs);
  const write = (event: RunFeedEvent) => {
    if (event.kind === "run" ? caller && !seesRun(caller, { metadata: { ...event.metadata } }) : scoped) return;
    response.write(`event: ${event.kind}\ndata: ${JSON.stringify(event.kind === "run" ? event.run : event.counts)}\n\n`);
  };
  const counts = await runs.statusCounts();
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  unsubscribe = await feed.subscribe(write);
  if (left) return unsubscribe();
  write({ kind: "counts", counts });
  response.write("event: ready\ndata: {}\n\n");
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
