import type { CommandEntry } from "./commands.ts";

/**
 * Every command's name, usage, summary and flags, with a `load()` that
 * imports the command's module only when that command runs: `rein --help`
 * and a command's own `--help` then load no command module, and a command
 * loads only its own module's imports, not every other command's.
 * registry.test.ts holds these copies equal to the modules' own.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "run",
    usage: 'run "<goal>" [--workspace DIR [--include-dirty]] [--example NAME] [--approve | --deny] [--detach]',
    summary: "start every role in this process, run a goal end to end and print its progress",
    options: { example: { type: "string" }, tools: { type: "string" }, approve: { type: "boolean" }, deny: { type: "boolean" }, reason: { type: "string" }, workspace: { type: "string" }, "include-dirty": { type: "boolean" }, detach: { type: "boolean" } },
    load: async () => (await import("./run-command.ts")).runCommand,
  },
  {
    name: "diff",
    usage: "diff <runId>",
    summary: "print what a run changed in its workspace as a unified diff against the directory it ran on",
    options: {},
    load: async () => (await import("./workspace-commands.ts")).diffCommand,
  },
  {
    name: "apply",
    usage: "apply <runId>",
    summary: "write a run's changes into the directory it ran on, refusing when that directory changed under the same files",
    options: {},
    load: async () => (await import("./workspace-commands.ts")).applyCommand,
  },
  {
    name: "submit",
    usage: 'submit "<goal>" [--example NAME] [--tools a,b] [--workspace DIR [--include-dirty]]',
    summary: "put a goal on the queue for running roles and print its run id",
    options: { example: { type: "string" }, tools: { type: "string" }, workspace: { type: "string" }, "include-dirty": { type: "boolean" } },
    load: async () => (await import("./run-commands.ts")).submitCommand,
  },
  {
    name: "status",
    usage: "status <runId> [--json]",
    summary: "print a run's status, steps and spend",
    options: { json: { type: "boolean" } },
    load: async () => (await import("./run-commands.ts")).statusCommand,
  },
  {
    name: "trace",
    usage: "trace <runId | file.jsonl> [--audit | --graph | --json | --check | --otel | --call CALLID] | trace export <runId> [-o FILE] | trace import FILE [--prefix P]",
    summary: "show a run's trace (timeline, audit, graph, raw, completeness) or one call's input and output; export it to JSONL or import one",
    options: { audit: { type: "boolean" }, graph: { type: "boolean" }, json: { type: "boolean" }, check: { type: "boolean" }, otel: { type: "boolean" }, call: { type: "string" }, output: { type: "string", short: "o" }, prefix: { type: "string" } },
    load: async () => (await import("./trace-commands.ts")).traceCommand,
  },
  {
    name: "replay",
    usage: "replay <runId | file.jsonl> [--stub-tools] [--allow-external] [--from-step S | --step S] [--example NAME]",
    summary: "re-run a recorded run with its recorded model outputs in a fresh workspace; report identical or the first divergence",
    options: { "stub-tools": { type: "boolean" }, "allow-external": { type: "boolean" }, "from-step": { type: "string" }, step: { type: "string" }, example: { type: "string" } },
    load: async () => (await import("./replay-commands.ts")).replayCommand,
  },
  {
    name: "eval",
    usage: "eval <suite-dir> [--baseline FILE] [--write-baseline FILE] [--tools-module FILE] [--json]",
    summary: "run an eval suite; print pass rate, steps, tokens and cost; gate against a baseline",
    options: { baseline: { type: "string" }, "write-baseline": { type: "string" }, "tools-module": { type: "string" }, json: { type: "boolean" } },
    load: async () => (await import("./eval-commands.ts")).evalCommand,
  },
  {
    name: "runs",
    usage: "runs list [--limit N] | runs prune --older-than 30d [--dry-run] [--include-active]",
    summary: "list recent runs, or delete old runs' state, trace and artifacts",
    options: { limit: { type: "string" }, "older-than": { type: "string" }, "dry-run": { type: "boolean" }, "include-active": { type: "boolean" } },
    load: async () => (await import("./runs-commands.ts")).runsCommand,
  },
  {
    name: "cancel",
    usage: "cancel <runId> [--reason TEXT]",
    summary: "cancel a run; it ends with what it has",
    options: { reason: { type: "string" } },
    load: async () => (await import("./run-commands.ts")).cancelCommand,
  },
  {
    name: "reply",
    usage: 'reply <runId> "<instruction>"',
    summary: "answer an escalated run; it resumes through the planner",
    options: {},
    load: async () => (await import("./run-commands.ts")).replyCommand,
  },
  {
    name: "approvals",
    usage: "approvals [--run RUNID] [--all]",
    summary: "list approvals waiting for a person (--all: every status)",
    options: { run: { type: "string" }, all: { type: "boolean" } },
    load: async () => (await import("./approval-commands.ts")).approvalsCommand,
  },
  {
    name: "approve",
    usage: "approve <approvalId> [--note TEXT]",
    summary: "let exactly that action run once",
    options: { note: { type: "string" } },
    load: async () => (await import("./approval-commands.ts")).approveCommand,
  },
  {
    name: "deny",
    usage: "deny <approvalId> --reason TEXT",
    summary: "refuse the action; the model is told why and chooses again",
    options: { reason: { type: "string" } },
    load: async () => (await import("./approval-commands.ts")).denyCommand,
  },
  {
    name: "lessons",
    usage: 'lessons [rm <lessonId>] [--for "<goal>"] [--json]',
    summary: "list what runs learned (newest first, or most similar to --for); rm removes one",
    options: { for: { type: "string" }, json: { type: "boolean" } },
    load: async () => (await import("./lesson-commands.ts")).lessonsCommand,
  },
  {
    name: "plugins",
    usage: "plugins list [--json] | plugins check <dir>",
    summary: "list the configured plugins with their tools, state, breaker and restarts, or check a plugin directory end to end",
    options: { json: { type: "boolean" } },
    load: async () => (await import("./plugin-commands.ts")).pluginsCommand,
  },
  {
    name: "serve",
    usage: "serve [--http PORT [--host ADDRESS] [--token-env NAME] [--allow-origin ORIGIN]...] [--concurrency N]",
    summary: "run the controller (consumes the control queue), optionally with the HTTP API (always behind a bearer token)",
    options: { concurrency: { type: "string" }, http: { type: "string" }, host: { type: "string" }, "token-env": { type: "string" }, "allow-origin": { type: "string", multiple: true }, "grace-ms": { type: "string" }, "lock-ms": { type: "string" } },
    load: async () => (await import("./role-commands.ts")).serveCommand,
  },
  {
    name: "worker",
    usage: "worker --role plan|step|evaluate|control [--concurrency N] [--grace-ms MS] [--lock-ms MS]",
    summary: "run one role's consumer; start as many as you need, on any machine",
    options: { role: { type: "string", multiple: true }, concurrency: { type: "string" }, "grace-ms": { type: "string" }, "lock-ms": { type: "string" } },
    load: async () => (await import("./role-commands.ts")).workerCommand,
  },
  {
    name: "models",
    usage: "models [--example NAME]",
    summary: "print the role \u2192 provider/model table exactly as `rein run` resolves it (config, then API keys in the environment, then the example's script)",
    options: { example: { type: "string" } },
    load: async () => (await import("./admin-commands.ts")).modelsCommand,
  },
  {
    name: "config",
    usage: "config schema",
    summary: 'print the JSON Schema of rein.config.json (for editors: "$schema": "./rein.schema.json")',
    options: {},
    load: async () => (await import("./config-commands.ts")).configCommand,
  },
  {
    name: "keys",
    usage: "keys generate [--out DIR] [--force]",
    summary: "write the Ed25519 key pairs: packet signing (controllers / workers) and approval decisions (deciders / step workers); --force replaces existing ones",
    options: { out: { type: "string" }, force: { type: "boolean" } },
    load: async () => (await import("./admin-commands.ts")).keysCommand,
  },
];
