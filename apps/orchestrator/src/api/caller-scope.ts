import { ReinError } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import type { ReinRuntime } from "@rein/runtime";
import { type Caller, seesRun } from "./api-tokens.ts";

// What a token limited to some runs (`Caller.runs`) is shown of the runs, and what it submits.

/** The run's state when `caller` may see it; otherwise the same 404 as a run that does not exist, so its existence is not told either. */
export async function visibleRun(runtime: ReinRuntime, caller: Caller | undefined, runId: string): Promise<RunState> {
  const state = await runtime.runs.require(runId);
  if (caller && !seesRun(caller, state.goal))
    throw new ReinError("not_found", `no run ${runId}; expected the id printed by \`rein submit\``);
  return state;
}

/** Of things that belong to runs, those of runs `caller` may see. */
export async function visibleOnly<Item extends { runId: string }>(
  runtime: ReinRuntime,
  caller: Caller | undefined,
  items: readonly Item[],
): Promise<Item[]> {
  if (!caller?.runs) return [...items];
  const runIds = [...new Set(items.map((item) => item.runId))];
  const states = await Promise.all(runIds.map((runId) => runtime.runs.get(runId).catch(() => null)));
  const seen = new Set(runIds.filter((_, i) => states[i] && seesRun(caller, (states[i] as RunState).goal)));
  return items.filter((item) => seen.has(item.runId));
}

/** A goal a token limited to some runs submits is one of them: the scope's metadata is written into it (over whatever it said). */
export function withinScope(caller: Caller | undefined, body: unknown): unknown {
  if (!caller?.runs || typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const given = (body as { metadata?: unknown }).metadata;
  const metadata = typeof given === "object" && given !== null && !Array.isArray(given) ? given : {};
  return { ...body, metadata: { ...metadata, ...caller.runs.metadata } };
}
