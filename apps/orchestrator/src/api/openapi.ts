/**
 * The OpenAPI 3.1 description of the HTTP API, served at `/openapi.json`.
 * A test compares its paths with the route table both ways, so a route
 * cannot be added or removed without this changing too.
 */
const id = (name: string, what: string) => ({ name, in: "path", required: true, schema: { type: "string" }, description: what });
const json = (schema: object) => ({ "application/json": { schema } });
const ok = (description: string, schema: object = { type: "object" }) => ({ description, content: json(schema) });
const error = { description: "what was wrong and what was expected", content: json({ $ref: "#/components/schemas/Error" }) };
const RUN_STATUSES = ["planning", "dispatching", "executing", "evaluating", "waiting_approval", "done", "failed", "escalated", "cancelled"];

const RunSummary = {
  type: "object",
  required: ["id", "status", "goal", "startedAt", "durationMs", "steps", "tokens", "costUsd", "waitingFor", "build"],
  properties: {
    id: { type: "string" },
    status: { enum: RUN_STATUSES },
    goal: { type: "string" },
    startedAt: { type: "string", format: "date-time" },
    durationMs: { type: "number", description: "until the run's last write when it ended, else until now" },
    steps: { type: "integer" },
    tokens: { type: "integer", description: "input plus output tokens" },
    costUsd: { type: "number" },
    waitingFor: {
      oneOf: [
        { type: "null" },
        { type: "object", properties: { approvals: { type: "array", items: { type: "string" } } } },
        { type: "object", properties: { reply: { type: "string", description: "why the run escalated" } } },
      ],
    },
    build: { type: ["string", "null"], description: "the build the run was started under (config buildId); null for none" },
  },
};

const CallUse = {
  type: "object",
  properties: {
    callId: { type: "string" },
    stepId: { type: ["string", "null"] },
    tool: { type: "string" },
    status: { type: "string", description: '"ok", "exit 1", "killed by SIGKILL", the result status, or "no result"' },
    exitCode: { type: ["integer", "null"] },
    durationMs: { type: ["number", "null"] },
    decision: {
      type: ["object", "null"],
      properties: { decision: { type: "string" }, rule: { type: "string" }, reason: { type: "string" } },
    },
    message: { type: ["string", "null"] },
    input: { description: "the arguments the model gave" },
    output: { type: ["string", "null"], description: "the output as the tool returned it; null when not executed" },
    presented: { type: ["string", "null"], description: "the tool result as the model read it" },
  },
};

const StatusCounts = {
  type: "object",
  properties: {
    byStatus: { type: "object", additionalProperties: { type: "integer" } },
    counted: { type: "integer" },
    exact: { type: "boolean" },
  },
};

const QueuedApproval = {
  type: "object",
  description:
    "An Approval (approvalId, runId, stepId, tool, args, scope, actionHash, status, createdAt, expiresAt) with what a person needs to decide it",
  properties: {
    approvalId: { type: "string" },
    runId: { type: "string" },
    stepId: { type: "string" },
    tool: { type: "string", description: "the action" },
    args: { description: "its arguments" },
    expiresAt: { type: "string", format: "date-time" },
    goal: { type: ["string", "null"] },
    rule: { type: ["string", "null"], description: "the policy rule that required approval" },
    ruleReason: { type: ["string", "null"] },
    callId: { type: ["string", "null"], description: "the waiting tool call" },
    evidence: {
      type: "array",
      description:
        "the run's latest calls before the step asked (at most 10; earlier steps' findings are what a step builds on), output cut to 2000 characters",
      items: {
        type: "object",
        properties: {
          stepId: { type: ["string", "null"] },
          callId: { type: "string" },
          tool: { type: "string" },
          input: {},
          status: { type: "string" },
          output: { type: ["string", "null"] },
          outputTruncated: { type: "boolean" },
        },
      },
    },
    earlierCalls: { type: "integer", description: "the run's calls before those in evidence" },
  },
};

const QueueOverview = {
  type: "object",
  properties: {
    queues: {
      type: "array",
      items: {
        type: "object",
        properties: {
          queue: { type: "string", description: "control, plan, step, evaluate, or step.<build> for the runs started under a build" },
          waiting: { type: "integer" },
          active: { type: "integer" },
          delayed: { type: "integer" },
          failed: { type: "integer" },
          prioritized: { type: "integer" },
        },
      },
    },
    workers: {
      type: "array",
      description: "role processes that beat within the last 30 s",
      items: {
        type: "object",
        properties: {
          process: { type: "string", description: "host:pid" },
          roles: { type: "array", items: { type: "string" } },
          concurrency: { type: ["integer", "null"] },
          build: { type: "string", description: "the build the process announces (config buildId, --build-id); absent without one" },
          tools: {
            type: "array",
            items: { type: "string" },
            description:
              "a step worker's tools from your modules (toolModules, --tools), which goals may grant while it beats; absent without any",
          },
          lastHeartbeat: { type: "string", format: "date-time" },
        },
      },
    },
    rateLimits: {
      type: "array",
      description: "the fleet's rate budget per limited provider and model, read from Redis (docs/models.md)",
      items: {
        type: "object",
        properties: {
          provider: { type: "string" },
          model: { type: "string" },
          configured: {
            type: "object",
            description:
              "requestsPerMinute, inputTokensPerMinute, outputTokensPerMinute, tokensPerMinute, maxInFlight (this server's config)",
          },
          learned: { type: "object", description: "per dimension: { limit?, remaining?, at } as the provider's headers stated" },
          available: { type: "object", description: "per dimension Rein limits: what may be spent now" },
          inFlight: { type: "integer" },
          waiting: { type: "integer" },
          pausedUntil: { type: "integer", description: "ms since the epoch, while a 429's retry-after pauses the model's calls" },
          granted: { type: "integer" },
          waits: { type: "integer" },
          waitedMs: { type: "integer" },
          rateLimited: { type: "integer", description: "429s" },
        },
      },
    },
  },
};

const RunView = {
  type: "object",
  required: ["runId", "goal", "status", "plan", "graph", "timeline", "calls", "inFlight", "verdicts", "usage", "answer", "unreadable"],
  properties: {
    runId: { type: "string" },
    goal: { type: "string" },
    status: { oneOf: [{ enum: RUN_STATUSES }, { type: "null" }] },
    stopReason: { type: ["string", "null"] },
    startedAt: { type: ["string", "null"], format: "date-time" },
    lastEventAt: { type: ["string", "null"], format: "date-time" },
    plan: {
      type: "object",
      description:
        "current: the newest plan; revisions: every accepted plan with its trigger (first, after_step, replan, after_instruction, answer_rejected, after_context) and reason",
    },
    graph: {
      type: "object",
      description:
        "steps (each with attempts, the call keys of each attempt, and usage), edges (next, delegated) and groups (steps dispatched at once: members in the order asked, join rule, outcome, cancelled members)",
    },
    timeline: {
      type: "array",
      description: "events worth a line: seq, at, offsetMs, durationMs, kind, stepId, label, callKey, failed",
      items: { type: "object" },
    },
    calls: { type: "array", description: "each tool call, keyed step|callId|index", items: { type: "object" } },
    inFlight: {
      type: "array",
      description:
        "tool calls running now that the trace does not hold yet (a step's turn is written after its calls end): key, stepId, callId, tool, index, startedAt, input, progress; empty once the run ended",
      items: { type: "object" },
    },
    verdicts: { type: "array", items: { type: "object" } },
    usage: { type: "object", description: "total, byStep, byRole, budget, spent, unpriced" },
    answer: {
      type: ["object", "null"],
      description: "text, summary, partial, claims (each with status and evidence links to calls), gaps, missing",
    },
    unreadable: { type: "array", items: { type: "object" } },
  },
};

const Health = {
  type: "object",
  properties: {
    ok: { type: "boolean" },
    redis: { enum: ["up", "down"] },
    roles: { type: "array", items: { type: "string" } },
    error: { type: "string" },
  },
};

export function openApiDocument(): object {
  return {
    openapi: "3.1.0",
    info: {
      title: "Rein HTTP API",
      version: "1",
      description:
        "Served by `rein serve --http`. Every route but `/` needs `Authorization: Bearer <token>`: the shared token (identity `operator`, role admin) or a named one from `--tokens-file`; bodies are JSON. Each operation's `x-rein-role` is the least role whose token may call it (viewer < operator < admin); a lesser one gets 403. A token limited to some runs gets 404 for any other run, as for a run that does not exist.",
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        Error: { type: "object", required: ["error"], properties: { error: { type: "string" } } },
        RunSummary,
        StatusCounts,
        CallUse,
        RunView,
        Health,
        QueuedApproval,
        QueueOverview,
      },
    },
    security: [{ bearer: [] }],
    paths: {
      "/": {
        get: {
          summary: "The web dashboard (holds no data; needs no token)",
          security: [],
          responses: { 200: { description: "text/html" } },
        },
      },
      "/openapi.json": { get: { summary: "This document", responses: { 200: ok("OpenAPI 3.1") } } },
      "/identity": {
        get: {
          summary: "Who the request's token stands for, its role, and the runs it may see when it is limited",
          responses: {
            200: ok("{ identity, role, runs? }", {
              type: "object",
              required: ["identity", "role"],
              properties: {
                identity: { type: "string" },
                role: { enum: ["viewer", "operator", "admin"] },
                runs: { type: "object", description: "{ metadata: { key: value } }: only runs whose goal metadata holds every pair" },
              },
            }),
            401: error,
          },
        },
      },
      "/healthz": {
        get: {
          summary: "Redis answers, and this process's roles",
          responses: { 200: ok("healthy", Health), 503: ok("Redis unreachable", Health) },
        },
      },
      "/readyz": {
        get: {
          summary: "Healthy, and the queues' connections are ready",
          responses: { 200: ok("ready", Health), 503: ok("not ready", Health) },
        },
      },
      "/metrics": {
        get: {
          summary: "The deployment's metrics in Prometheus text format",
          description:
            "Counters folded from every run's trace (runs, steps, tool calls by tool and outcome, model calls, tokens and cost by role and model, latency histograms), runs per status, queue depths and pending approvals. Scrape with the bearer token (Prometheus `authorization` credentials).",
          responses: { 200: { description: "text/plain; version=0.0.4" } },
        },
      },
      "/runs": {
        post: {
          summary: "Submit a goal",
          requestBody: {
            required: true,
            content: json({
              description:
                'a Goal: `text` (required), `tools` as objects (`[{"name": "read_file"}]`; none granted when absent), `budget`, `kind`, `workspace` (a seed under config `seedsRoot`), `policy`, `models`, `metadata` (docs/api.md, "Submitting a run")',
            }),
          },
          responses: { 202: ok("accepted: { runId, status, events }"), 400: error },
        },
        get: {
          summary: "Run summaries, newest first, with counts per status",
          description:
            "Reads at most 500 index entries per request; a page shorter than `limit` with a `nextCursor` means the filter matched little of those. Counts are over the newest 1000 runs (`counts.exact` says whether that is all), recomputed at most every 5 s.",
          parameters: [
            { name: "status", in: "query", schema: { enum: RUN_STATUSES } },
            { name: "build", in: "query", schema: { type: "string" }, description: "only runs started under this build" },
            { name: "q", in: "query", schema: { type: "string" }, description: "case-insensitive text in the goal or the run id" },
            { name: "cursor", in: "query", schema: { type: "string" }, description: "the nextCursor of the previous page" },
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
          ],
          responses: {
            200: ok("a page", {
              type: "object",
              properties: {
                runs: { type: "array", items: { $ref: "#/components/schemas/RunSummary" } },
                nextCursor: { type: ["string", "null"] },
                scanned: { type: "integer" },
                counts: { $ref: "#/components/schemas/StatusCounts" },
              },
            }),
            400: error,
          },
        },
      },
      "/runs/events": {
        get: {
          summary: "Changes to the run list as Server-Sent Events, live until the client leaves",
          description:
            "`event: counts` (StatusCounts) first, then `event: ready` once every later change will be sent: read `GET /runs` after it. Then `event: run` (a RunSummary, new or changed) and `event: counts` after changes. One shared watcher per server process looks for changes every second while anyone listens. Send the token as a header (read with fetch; EventSource cannot send one).",
          responses: { 200: { description: "text/event-stream" }, 401: error },
        },
      },
      "/runs/{id}": { get: { summary: "A run's state", parameters: [id("id", "run id")], responses: { 200: ok("RunState"), 404: error } } },
      "/runs/{id}/events": {
        get: {
          summary: "The run's trace as Server-Sent Events, then live until the client leaves",
          parameters: [id("id", "run id")],
          responses: { 200: { description: "text/event-stream" }, 404: error },
        },
      },
      "/runs/{id}/view": {
        get: {
          summary:
            "The run page's view model, built from the trace: plan revisions, step graph, timeline, tool calls, verdicts, usage against the budget, the answer's claims with their evidence, and gaps",
          description:
            "Each tool call carries its input, its output, the tool result as the model read it (`presented`), its exit code or HTTP status, the permission decision and rule, and the artifact holding a truncated output. A command that exited non-zero has `status` `exit N` and `failed` true. A call still running is in `inFlight` until its step's turn is written, then in `calls`. Events the trace catalogue cannot read are listed in `unreadable`.",
          parameters: [id("id", "run id")],
          responses: { 200: ok("RunView", RunView), 404: error },
        },
      },
      "/runs/{id}/artifacts/{artifactId}": {
        get: {
          summary: "A whole tool output the observation showed only part of (a call's `artifactId` in the run view)",
          parameters: [id("id", "run id"), id("artifactId", "the artifact id")],
          responses: {
            200: ok("the artifact", {
              type: "object",
              properties: {
                artifactId: { type: "string" },
                runId: { type: "string" },
                content: { type: "string" },
                bytes: { type: "integer" },
                tool: { type: "string" },
                mediaType: { type: "string" },
                createdAt: { type: "string", format: "date-time" },
              },
            }),
            404: error,
          },
        },
      },
      "/runs/{id}/calls/{callId}": {
        get: {
          summary: "One tool call: input, decision, exit, output, and what the model was shown (as `rein trace --call`)",
          parameters: [id("id", "run id"), id("callId", "the tool call id")],
          responses: {
            200: ok("each use of the call id", {
              type: "object",
              properties: { runId: { type: "string" }, uses: { type: "array", items: { $ref: "#/components/schemas/CallUse" } } },
            }),
            404: error,
          },
        },
      },
      "/runs/{id}/reply": {
        post: {
          summary: "Answer an escalated run (as `rein reply`)",
          parameters: [id("id", "run id")],
          requestBody: {
            required: true,
            content: json({ type: "object", required: ["instruction"], properties: { instruction: { type: "string" } } }),
          },
          responses: { 202: ok("the run resumes with the instruction"), 400: error, 404: error },
        },
      },
      "/runs/{id}/cancel": {
        post: {
          summary: "Cancel a run",
          parameters: [id("id", "run id")],
          requestBody: { content: json({ type: "object", properties: { reason: { type: "string" } } }) },
          responses: { 202: ok("cancel requested"), 404: error },
        },
      },
      "/approvals": {
        get: {
          summary:
            "The approvals queue: pending approvals across runs, each with the rule that required it and the evidence its step gathered",
          responses: {
            200: ok("{ approvals }", {
              type: "object",
              properties: { approvals: { type: "array", items: { $ref: "#/components/schemas/QueuedApproval" } } },
            }),
          },
        },
      },
      "/queues": {
        get: {
          summary: "Jobs per queue (waiting, active, delayed, failed), the workers seen recently and the fleet's rate budgets",
          responses: { 200: ok("queues, workers and rate limits", QueueOverview) },
        },
      },
      "/approvals/{id}/approve": {
        post: {
          summary: "Approve; the approver recorded is `http:<the token's identity>`",
          parameters: [id("id", "approval id")],
          requestBody: { content: json({ type: "object", properties: { note: { type: "string" } } }) },
          responses: { 200: ok("the decided approval"), 404: error, 409: error },
        },
      },
      "/approvals/{id}/deny": {
        post: {
          summary: "Deny, saying why; the approver recorded is `http:<the token's identity>`",
          parameters: [id("id", "approval id")],
          requestBody: {
            required: true,
            content: json({ type: "object", required: ["reason"], properties: { reason: { type: "string" }, note: { type: "string" } } }),
          },
          responses: { 200: ok("the decided approval"), 400: error, 404: error, 409: error },
        },
      },
    },
  };
}

/**
 * The document with each operation's `x-rein-role` (and its 403) taken from
 * the route table itself, so what the document says a role may do is what
 * the server enforces.
 */
export function withRoles(document: object, routes: readonly { method: string; path: string; public?: true; role: string }[]): object {
  const paths = (document as { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }).paths;
  const annotated = Object.fromEntries(
    Object.entries(paths).map(([path, methods]) => [
      path,
      Object.fromEntries(
        Object.entries(methods).map(([method, operation]) => {
          const served = routes.find((route) => route.path === path && route.method === method.toUpperCase());
          if (!served || served.public) return [method, operation];
          const refused = served.role === "viewer" ? {} : { 403: { ...error, description: `the token's role is below ${served.role}` } };
          return [method, { ...operation, "x-rein-role": served.role, responses: { ...operation.responses, ...refused } }];
        }),
      ),
    ]),
  );
  return { ...document, paths: annotated };
}
