import { isTerminal, type RunState } from "@rein/contracts/run";
import type { ReinRuntime } from "../runtime.ts";

/**
 * Resolves when the run is terminal (or `until` holds), following its trace
 * rather than polling on a timer. The controller writes state before it
 * appends the trace, so for a finished run this also waits for its `run.*` event.
 */
export async function waitForRun(
  runtime: ReinRuntime,
  runId: string,
  until: (state: RunState) => boolean = (state) => isTerminal(state.status),
): Promise<RunState> {
  const controller = new AbortController();
  const finished = (state: RunState, kinds: Set<string>) => until(state) && (!isTerminal(state.status) || kinds.has(`run.${state.status}`));
  const kinds = new Set<string>();
  try {
    for await (const event of runtime.trace.follow(runId, controller.signal, 200)) {
      kinds.add(event.kind);
      const state = await runtime.runs.require(runId);
      if (finished(state, kinds)) return state;
    }
    return runtime.runs.require(runId);
  } finally {
    controller.abort();
  }
}
