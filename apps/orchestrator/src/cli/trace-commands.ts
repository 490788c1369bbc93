import { ReinError } from "@rein/contracts";
import { type LiveEvent, type ReinRuntime, startOtel, stopOtel } from "@rein/runtime";
import { emitRunSpans } from "../telemetry/run-spans.ts";
import { answerQuestions } from "../trace/trace-check.ts";
import { loadBundle, type TraceBundle } from "../trace/trace-bundle.ts";
import { runningPluginProcesses } from "../trace/running-plugin-processes.ts";
import { renderJsonLines } from "../trace/trace-export.ts";
import { readExport, writeExport } from "../trace/trace-files.ts";
import { importBundle } from "../trace/trace-import.ts";
import { renderAudit } from "../trace/views/audit-view.ts";
import { renderCall } from "../trace/views/call-view.ts";
import { renderGraph } from "../trace/views/graph-view.ts";
import { renderTimeline } from "../trace/views/timeline-view.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import { followRun } from "./follow-run.ts";
import type { CommandHandler, ParsedFlags } from "./command-spec.ts";
import type { TRACE } from "./command-specs.ts";
import { err, out } from "./output.ts";

type TraceFlags = ParsedFlags<typeof TRACE>;

export const traceCommand: CommandHandler<typeof TRACE> = async (args, flags) => {
  if (args.subcommand === "export") return exportTrace(args.runId, flags);
  if (args.subcommand === "import") return importTrace(args.file, flags);
  const { source } = args;
  if (flags.follow) return withRuntime(flags, (runtime) => followTrace(runtime, source));
  const bundle = source.endsWith(".jsonl")
    ? await readExport(source)
    : await withRuntime(flags, (runtime) => loadRequired(runtime, source));
  if (flags.otel) return sendSpans(bundle);
  return showTrace(bundle, flags);
};

/**
 * `--otel`: a recorded run as OpenTelemetry spans, exported by OTLP/HTTP the
 * way a live run's are (`OTEL_EXPORTER_OTLP_ENDPOINT`), for runs that ran
 * with `otel.enabled` off.
 */
async function sendSpans(bundle: TraceBundle): Promise<number> {
  emitRunSpans(bundle.events, startOtel({ enabled: true }).tracer);
  await stopOtel();
  err(
    `sent the spans of ${bundle.runId} to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318"} (OTLP/HTTP)`,
  );
  return 0;
}

function showTrace(bundle: TraceBundle, flags: TraceFlags): number {
  if (flags.json) {
    process.stdout.write(renderJsonLines(bundle));
    return 0;
  }
  if (flags.call !== undefined) {
    out(renderCall(bundle, flags.call).trimEnd());
    return 0;
  }
  if (flags.check) {
    const answers = answerQuestions(bundle.events, bundle.blobs);
    for (const answer of answers) {
      out(
        `${answer.answered ? "✓" : "✗"} ${answer.question}: ${answer.answered ? `${answer.evidence.length} event(s)` : answer.gaps.slice(0, 3).join("; ")}`,
      );
    }
    return answers.every((answer) => answer.answered) ? 0 : 1;
  }
  const text = flags.audit
    ? renderAudit(bundle.events)
    : flags.graph
      ? renderGraph(bundle.events)
      : renderTimeline(bundle.events, bundle.state);
  process.stdout.write(text);
  return 0;
}

/**
 * `--follow`: the run as `rein run` shows it, from its first event until it
 * ends, with each tool call shown when it starts (from the live channel;
 * its durable copy, written after the call ended, is not shown again).
 */
async function followTrace(runtime: ReinRuntime, runId: string): Promise<number> {
  await runtime.runs.require(runId);
  const listeners: ((event: LiveEvent) => void)[] = [];
  const live = await runtime.live.subscribe(runId, (event) => {
    for (const listener of listeners) listener(event);
  });
  try {
    // Read once subscribed: a call that starts after is heard on the channel, one running now is in the record.
    const inFlight = await runtime.live.calls.read(runId);
    const state = await followRun(runtime, runId, { live: (listener) => listeners.push(listener), inFlight });
    out(`run ${runId}: ${state.status}${state.stopReason ? ` (${state.stopReason})` : ""}`);
    return 0;
  } finally {
    await live.close();
  }
}

async function exportTrace(runId: string, flags: TraceFlags): Promise<number> {
  const bundle = await withRuntime(flags, (runtime) => loadRequired(runtime, runId));
  const written = await writeExport(bundle, flags.output ?? `${runId}.jsonl`);
  err(
    `exported ${bundle.events.length} events to ${written.jsonl}${written.sidecar ? ` (large payloads, prompts and artifacts in ${written.sidecar})` : ""}`,
  );
  const running = runningPluginProcesses(bundle.events);
  if (running.length > 0) {
    const named = running.map((process) => `${process.plugin}${process.pid === undefined ? "" : ` (pid ${process.pid})`}`).join(", ");
    err(
      `note: the run's plugin process(es) ${named} had not exited yet; each adds a plugin.process_exited event when it stops (an idle one within a minute), so export again then for the whole trace`,
    );
  }
  return 0;
}

async function importTrace(file: string, flags: TraceFlags): Promise<number> {
  const bundle = await readExport(file);
  const prefix = await withRuntime(flags, async (runtime) => {
    await importBundle(runtime, bundle);
    return runtime.keys.prefix;
  });
  out(`imported run ${bundle.runId} (${bundle.events.length} events, ${bundle.artifacts.length} artifacts) under prefix ${prefix}`);
  return 0;
}

async function loadRequired(runtime: Parameters<typeof loadBundle>[0], runId: string): Promise<TraceBundle> {
  const bundle = await loadBundle(runtime, runId);
  if (bundle.events.length === 0)
    throw new ReinError("not_found", `no trace for run ${runId}; expected the id printed by \`rein run\` or \`rein submit\``);
  return bundle;
}

async function withRuntime<T>(
  flags: TraceFlags,
  body: (runtime: Awaited<ReturnType<typeof openContext>>["runtime"]) => Promise<T>,
): Promise<T> {
  const context = await openContext(contextFlags(flags));
  try {
    return await body(context.runtime);
  } finally {
    // BullMQ emits an unhandled "Connection is closed" when a queue is closed before it connected.
    await Promise.all(context.runtime.queues.all().map((queue) => queue.waitUntilReady()));
    await context.close();
  }
}
