import { isTerminal, type RunState } from "@rein/contracts/run";
import type { CallInFlight, LiveEvent, ReinRuntime } from "@rein/runtime";
import type { TypedTraceEvent } from "@rein/trace";
import { describeCallInFlight, describeEvent, describeLiveCall, type ProgressMemory } from "./progress.ts";
import { answerLines } from "./answer-lines.ts";
import { spendLine } from "./spend-line.ts";
import { out } from "./output.ts";

export interface FollowOptions {
  /** Called for each trace event after it is printed; may act (e.g. decide an approval). */
  onEvent?: (event: TypedTraceEvent) => Promise<void> | void;
  quiet?: boolean;
  /** Stops following early (the run goes on); the state as it stands is returned. */
  signal?: AbortSignal;
  /** Called before each progress line is printed (a terminal's status line is taken away). */
  beforeLine?: () => void;
  /**
   * Hands over the run's live events from the caller's subscription: a tool
   * call is then shown when it starts, and its progress as it comes, not
   * only once its step's turn is written after it ended.
   */
  live?: (listener: (event: LiveEvent) => void) => void;
  /** Calls running when the follow began (`live.calls.read`, after subscribing to `live`): each is shown after its step's dispatch. */
  inFlight?: readonly CallInFlight[];
}

/**
 * Prints a run's trace as it grows until the run is done, failed, cancelled
 * or escalated, and returns its final state.
 */
export async function followRun(runtime: ReinRuntime, runId: string, options: FollowOptions = {}): Promise<RunState> {
  const controller = new AbortController();
  options.signal?.addEventListener("abort", () => controller.abort(), { once: true });
  const memory: ProgressMemory = new Map();
  const print = (line: string | undefined) => {
    if (!line || options.quiet) return;
    options.beforeLine?.();
    out(line);
  };
  options.live?.((event) => {
    if (!controller.signal.aborted) print(describeLiveCall(event, memory));
  });
  try {
    for await (const event of runtime.trace.follow(runId, controller.signal)) {
      print(describeEvent(event, memory));
      if (event.kind === "step.dispatched")
        for (const call of options.inFlight ?? [])
          if (call.stepId === event.stepId && call.attempt === event.payload.attempt) print(describeCallInFlight(call, memory));
      await options.onEvent?.(event);
      if (
        event.kind.startsWith("run.") &&
        event.kind !== "run.submitted" &&
        event.kind !== "run.status_changed" &&
        event.kind !== "run.resumed"
      ) {
        const state = await runtime.runs.require(runId);
        if (isTerminal(state.status) || state.status === "escalated") return state;
      }
    }
    return runtime.runs.require(runId);
  } finally {
    controller.abort();
  }
}

export function printResult(state: RunState): void {
  out("");
  out(`run ${state.runId}: ${state.status}${state.stopReason ? ` (${state.stopReason})` : ""}`);
  const result = state.result;
  for (const line of result ? answerLines(result) : []) out(line);
  if (result?.partial && result.missing.length > 0) out(`missing: ${result.missing.join("; ")}`);
  out(`spent: ${spendLine(state)}`);
  out(`trace: rein trace ${state.runId}`);
}
