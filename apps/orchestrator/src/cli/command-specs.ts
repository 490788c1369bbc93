import { defineCommand } from "./command-spec.ts";

/*
 * Every command's declaration: name, summary, positional arguments,
 * subcommands and flags.
 * Plain data, loaded by `rein --help` without any command's module.
 */

const EXAMPLE = {
  kind: "string",
  value: "NAME",
  help: "an example under examples/ (bugfix, sre-triage): its goal, tools, workspace and, with no model configured, its scripted models",
} as const;
const TOOLS = {
  kind: "string",
  value: "a,b",
  help: "the tools the goal grants, comma-separated (default: read, write, edit, list and search files, run_command)",
} as const;
const WORKSPACE = {
  kind: "string",
  value: "DIR",
  help: "work on DIR: in a fresh git worktree of it (or a copy), never in DIR itself",
} as const;
const KIND = {
  kind: "choice",
  choices: ["question", "change", "text"],
  help: "what the goal asks for: an answer (question), something done (change) or a piece of writing (text); decides what may end the run done (default: the planner says; never said, change)",
} as const;
const INCLUDE_DIRTY = {
  kind: "boolean",
  help: "with --workspace on a git repository: copy its uncommitted changes in instead of refusing",
} as const;
const CONCURRENCY = {
  kind: "integer",
  value: "N",
  min: 1,
  help: "jobs each role's consumer takes at once (default: control 32, plan 32, evaluate 16, step 4)",
} as const;
const GRACE_MS = {
  kind: "integer",
  value: "MS",
  min: 0,
  help: "on SIGTERM, how long current jobs may finish before they are checkpointed and given back (default 10000)",
} as const;
const LOCK_MS = {
  kind: "integer",
  value: "MS",
  min: 1000,
  help: "a job's lock; a killed process's jobs go back to the queue after it (default 30000)",
} as const;
const BUILD_ID = {
  kind: "string",
  value: "ID",
  help: "this process's build (over config buildId and REIN_BUILD_ID): a controller starts new runs under it, a step worker takes only their steps",
} as const;
const JSON_OUTPUT = { kind: "boolean", help: "print JSON instead of text" } as const;

const GOAL = {
  name: "goal",
  value: '"<goal>"',
  optional: true,
  help: "what to do, quoted; optional with --example, whose goal text it replaces",
} as const;
const RUN_ID = { name: "runId", value: "<runId>", help: "a run id, as rein run or rein submit printed it" } as const;
const TRACE_SOURCE = { name: "source", value: "<runId | file.jsonl>", help: "a run id, or a trace exported by rein trace export" } as const;
const APPROVAL_ID = { name: "approvalId", value: "<approvalId>", help: "an approval id listed by rein approvals" } as const;

export const RUN = defineCommand({
  name: "run",
  args: [GOAL],
  summary: "start every role in this process, run a goal end to end and print its progress",
  flags: {
    example: EXAMPLE,
    tools: TOOLS,
    kind: KIND,
    workspace: WORKSPACE,
    "include-dirty": INCLUDE_DIRTY,
    approve: { kind: "boolean", help: "approve every action that waits for a person (unattended runs)" },
    deny: { kind: "boolean", help: "deny every action that waits for a person" },
    reason: { kind: "string", value: "TEXT", help: "with --deny: the reason the model is told" },
    detach: { kind: "boolean", help: "on Ctrl-C, leave the run to the other processes on the prefix instead of cancelling it" },
  },
});

export const DIFF = defineCommand({
  name: "diff",
  args: [RUN_ID],
  summary: "print what a run changed in its workspace as a unified diff against the directory it ran on",
  flags: {},
});

export const APPLY = defineCommand({
  name: "apply",
  args: [RUN_ID],
  summary: "write a run's changes into the directory it ran on, refusing when that directory changed under the same files",
  flags: {},
});

export const SUBMIT = defineCommand({
  name: "submit",
  args: [GOAL],
  summary: "put a goal on the queue for running roles and print its run id (warns when no controller serves the prefix)",
  flags: { example: EXAMPLE, tools: TOOLS, kind: KIND, workspace: WORKSPACE, "include-dirty": INCLUDE_DIRTY },
});

export const STATUS = defineCommand({
  name: "status",
  args: [RUN_ID],
  summary: "print a run's status, steps and spend",
  flags: { json: { kind: "boolean", help: "print the run's whole state as JSON" } },
});

export const TRACE = defineCommand({
  name: "trace",
  args: [TRACE_SOURCE],
  subcommands: {
    export: {
      summary: "write the run's trace to JSONL (-o FILE, default <runId>.jsonl), with a sidecar for large payloads",
      args: [RUN_ID],
    },
    import: {
      summary: "load an exported trace into Redis under --prefix (default: the config's)",
      args: [{ name: "file", value: "FILE", help: "a trace exported by rein trace export" }],
    },
  },
  summary:
    "show a run's trace (timeline, audit, graph, raw, completeness) or one call's input and output; export it to JSONL or import one",
  flags: {
    audit: { kind: "boolean", help: "every decision with its rule and actor (policy, runtime or a named person)" },
    graph: { kind: "boolean", help: "the steps as a tree, delegated children under their parents" },
    json: { kind: "boolean", help: "the raw events, one JSON object a line" },
    check: { kind: "boolean", help: "whether the trace answers the audit questions; exit 1 when one is not" },
    otel: { kind: "boolean", help: "send the run as OpenTelemetry spans by OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT" },
    call: { kind: "string", value: "CALLID", help: "one call: its input, decision, exit, output and the text the model was shown" },
    follow: {
      kind: "boolean",
      short: "f",
      help: "follow the run until it ends, one line per event, each tool call shown when it starts and its progress as it comes",
    },
    output: { kind: "string", value: "FILE", short: "o", help: "with export: the file to write (default <runId>.jsonl)" },
  },
});

export const REPLAY = defineCommand({
  name: "replay",
  args: [TRACE_SOURCE],
  summary:
    "re-run a recorded run with its recorded model outputs, tools answered from the recording; report identical or the first divergence",
  flags: {
    "stub-tools": { kind: "boolean", help: "answer tool calls with their recorded results; nothing is executed (the default)" },
    "run-tools": {
      kind: "boolean",
      help: "re-run tools for real in a fresh workspace; each call needing approval waits for --approve or --deny",
    },
    approve: {
      kind: "boolean",
      help: "with --run-tools: you approve every call that needs a person (recorded approvals are never reused)",
    },
    deny: { kind: "boolean", help: "with --run-tools: you deny every call that needs a person" },
    reason: { kind: "string", value: "TEXT", help: "with --deny: the reason the model is told" },
    "allow-external": { kind: "boolean", help: "with --run-tools: let tools with external effects run again (refused by default)" },
    "from-step": { kind: "string", value: "S", help: "replay from step S on" },
    step: { kind: "string", value: "S", help: "replay step S alone, from its recorded packet" },
    example: { kind: "string", value: "NAME", help: "the example whose tools the replay uses (default: the run's own)" },
  },
});

export const EVAL = defineCommand({
  name: "eval",
  args: [{ name: "suiteDir", value: "<suite-dir>", help: "a folder of eval cases (examples/eval-suite is one)" }],
  summary: "run an eval suite; print pass rate, steps, tokens and cost; gate against a baseline",
  flags: {
    baseline: { kind: "string", value: "FILE", help: "fail (exit 1) on a regression against this baseline" },
    "write-baseline": { kind: "string", value: "FILE", help: "write this result as a baseline" },
    "tools-module": { kind: "string", value: "FILE", help: "a module exporting tools: AnyTool[] that replace the tools of the same names" },
    json: JSON_OUTPUT,
  },
});

export const RUNS = defineCommand({
  name: "runs",
  subcommands: {
    list: { summary: "the newest runs (--limit N) with their status and goal", args: [] },
    prune: { summary: "delete the state, trace and artifacts of runs created longer ago than --older-than AGE", args: [] },
  },
  summary: "list recent runs, or delete old runs' state, trace and artifacts",
  flags: {
    limit: { kind: "integer", value: "N", min: 1, help: "with list: how many runs (default 20)" },
    "older-than": { kind: "string", value: "AGE", help: "with prune: runs created longer ago than AGE (30d, 12h, 90m)" },
    "dry-run": { kind: "boolean", help: "with prune: say what would be deleted, delete nothing" },
    "include-active": { kind: "boolean", help: "with prune: also runs that have not ended" },
  },
});

export const CANCEL = defineCommand({
  name: "cancel",
  args: [RUN_ID],
  summary: "cancel a run; it ends with what it has",
  flags: { reason: { kind: "string", value: "TEXT", help: "why, for the record" } },
});

export const REPLY = defineCommand({
  name: "reply",
  args: [
    RUN_ID,
    { name: "instruction", value: '"<instruction>"', help: "what the run should do now, quoted; it resumes through the planner" },
  ],
  summary: "answer an escalated run; it resumes through the planner",
  flags: {},
});

export const APPROVALS = defineCommand({
  name: "approvals",
  args: [],
  summary: "list approvals waiting for a person",
  flags: {
    run: { kind: "string", value: "RUNID", help: "only this run's" },
    all: { kind: "boolean", help: "every status, not only pending" },
  },
});

export const APPROVE = defineCommand({
  name: "approve",
  args: [APPROVAL_ID],
  summary: "let exactly that action run once",
  flags: { note: { kind: "string", value: "TEXT", help: "a note kept with the decision" } },
});

export const DENY = defineCommand({
  name: "deny",
  args: [APPROVAL_ID],
  summary: "refuse the action; the model is told why and chooses again",
  flags: { reason: { kind: "string", value: "TEXT", help: "why (required): the model is told" } },
});

export const LESSONS = defineCommand({
  name: "lessons",
  args: [],
  subcommands: {
    rm: { summary: "remove one lesson", args: [{ name: "lessonId", value: "<lessonId>", help: "a lesson id listed by rein lessons" }] },
  },
  summary: "list what runs learned (newest first, or most similar to --for); rm removes one",
  flags: {
    for: { kind: "string", value: '"<goal>"', help: "the lessons most similar to this goal" },
    json: JSON_OUTPUT,
  },
});

export const PLUGINS = defineCommand({
  name: "plugins",
  subcommands: {
    list: { summary: "the configured plugins, with what every running Rein process reports about them", args: [] },
    check: {
      summary: "validate a plugin directory, start it in the sandbox, handshake, ping and call each tool's example",
      args: [{ name: "dir", value: "<dir>", help: "a plugin's directory (with its plugin.json)" }],
    },
  },
  summary: "list the configured plugins with their tools, state, breaker and restarts, or check a plugin directory end to end",
  flags: {
    json: { kind: "boolean", help: "with list: print JSON instead of text" },
    workspace: {
      kind: "string",
      value: "DIR",
      help: "with check: call the examples in a copy of this directory (default: an empty one)",
    },
  },
});

export const MCP = defineCommand({
  name: "mcp",
  subcommands: {
    list: { summary: "the configured MCP servers, with their state and tools in every running Rein process", args: [] },
    check: {
      summary: "start one configured server here and print its tools, or its command, exit code and stderr",
      args: [{ name: "name", value: "<name>", help: "a server's name in the config's mcp" }],
    },
  },
  summary:
    "list the configured MCP servers with their state and tools in every running Rein process, or start one and print its tools or what went wrong",
  flags: { json: { kind: "boolean", help: "with list: print JSON instead of text" } },
});

export const SERVE = defineCommand({
  name: "serve",
  args: [],
  summary: "run the controller (consumes the control queue), optionally with the HTTP API (always behind a bearer token)",
  flags: {
    http: { kind: "integer", value: "PORT", min: 0, max: 65_535, help: "also serve the HTTP API and dashboard on PORT" },
    host: { kind: "string", value: "ADDRESS", help: "with --http: the address to listen on (default 127.0.0.1)" },
    "token-env": {
      kind: "string",
      value: "NAME",
      help: "with --http: the variable holding the bearer token (default: one is generated and printed once)",
    },
    "allow-origin": { kind: "string", value: "ORIGIN", multiple: true, help: "with --http: another origin whose pages may call the API" },
    "tokens-file": {
      kind: "string",
      value: "FILE",
      help: 'with --http: a JSON file of named tokens with roles, {"alice": {"role": "operator", "sha256": "<the token\'s sha256>"}, …} (docs/api.md); a decision taken with one is recorded under its name',
    },
    concurrency: CONCURRENCY,
    "build-id": BUILD_ID,
    "grace-ms": GRACE_MS,
    "lock-ms": LOCK_MS,
  },
});

export const WORKER = defineCommand({
  name: "worker",
  args: [],
  summary: "run roles' consumers; start as many as you need, on any machine",
  flags: {
    role: { kind: "choice", choices: ["plan", "step", "evaluate", "control"], multiple: true, help: "a role to run (at least one)" },
    tools: {
      kind: "string",
      value: "MODULE",
      multiple: true,
      help: "with --role step: a module of defineTool tools (.ts or .js) this worker carries, beside config toolModules",
    },
    "metrics-port": {
      kind: "integer",
      value: "PORT",
      min: 0,
      max: 65_535,
      help: "serve this process's own metrics (CPU, memory, event loop) on http://HOST:PORT/metrics",
    },
    "metrics-host": { kind: "string", value: "ADDRESS", help: "with --metrics-port: the address to listen on (default 127.0.0.1)" },
    concurrency: CONCURRENCY,
    "build-id": BUILD_ID,
    "grace-ms": GRACE_MS,
    "lock-ms": LOCK_MS,
  },
});

export const MODELS = defineCommand({
  name: "models",
  args: [],
  subcommands: {
    check: {
      summary: "make one minimal live call per configured role and report a retired model, a bad key or a refused parameter with its fix",
      args: [],
    },
  },
  summary:
    "print the roles' models exactly as `rein run` resolves them (config, then API keys in the environment, then the example's script), what the model catalogue says each accepts and costs, and any config problem",
  flags: { example: { kind: "string", value: "NAME", help: "resolve as `rein run --example NAME` would" } },
});

export const CONFIG = defineCommand({
  name: "config",
  subcommands: { schema: { summary: "print the JSON Schema of rein.config.json", args: [] } },
  summary: 'print the JSON Schema of rein.config.json (for editors: "$schema": "./rein.schema.json")',
  flags: {},
});

export const KEYS = defineCommand({
  name: "keys",
  subcommands: { generate: { summary: "write both key pairs to --out DIR (refuses to replace packet keys without --force)", args: [] } },
  summary: "write the Ed25519 key pairs: packet signing (controllers / workers) and approval decisions (deciders / step workers)",
  flags: {
    out: { kind: "string", value: "DIR", help: "the directory (default: the config's keysDir, .rein/keys)" },
    force: { kind: "boolean", help: "replace existing keys (every process must then be given the new ones)" },
  },
});
