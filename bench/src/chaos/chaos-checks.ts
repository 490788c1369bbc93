import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isTerminal, type RunState, type TraceEvent } from "@rein/contracts/run";
import type { ReinRuntime } from "@rein/runtime";
import { EFFECTS_FILE } from "./chaos-goal.ts";

const RUN_ENDS = new Set(["run.done", "run.failed", "run.cancelled", "run.escalated"]);
/**
 * What a step does that acts: a model call or a tool call. Taking a job and
 * restoring its checkpoint act on nothing: a worker may take a step in the
 * moment its run ends (intake read the run just before), and then stops at
 * its first call. `tool.interrupted` is the record of a call the end cut off.
 */
const STEP_WORK = (kind: string) => kind === "model.called" || (kind.startsWith("tool.") && kind !== "tool.interrupted");

export interface Check {
  name: string;
  passed: boolean;
  /** What was found, one line per offending run or job. */
  findings: string[];
}

/** What the suite asserts once every run has ended (or the wait for it ran out). */
export async function checkRuns(
  runtime: ReinRuntime,
  runIds: readonly string[],
  workspaceRoot: string,
  effectsOf: ReadonlyMap<string, number> = new Map(),
): Promise<Check[]> {
  const states = new Map<string, RunState | null>();
  for (const runId of runIds) states.set(runId, await runtime.runs.get(runId));
  const lost = runIds.filter((runId) => !states.get(runId));
  const notTerminal = [...states]
    .filter(([, state]) => state && !hasSettled(state))
    .map(([runId, state]) => `${runId}: still ${state?.status}`);
  const notDone = [...states]
    .filter(([, state]) => state && hasSettled(state) && state.status !== "done" && !cutInsideEffect(state))
    .map(([runId, state]) => `${runId}: ${state?.status} (${state?.stopReason ?? "no reason"})`);
  // A crash inside a non-idempotent effect leaves its outcome unknown to any runtime: at most once means a person decides.
  const cutInEffect = [...states]
    .filter(([, state]) => state && cutInsideEffect(state))
    .map(([runId]) => `${runId}: escalated, outcome of its effect unknown after a crash`);

  const effects: string[] = [];
  const lateWork: string[] = [];
  const fanOuts: FanOutRun[] = [];
  for (const runId of runIds) {
    const state = states.get(runId);
    const count = await effectCount(workspaceRoot, runId);
    const expected = effectsOf.get(runId) ?? 1;
    // At most once: an escalation that names an unknown outcome is the allowed alternative to a second run.
    const unknownEscalation = state ? cutInsideEffect(state) : false;
    if (count !== expected && !(count < expected && unknownEscalation))
      effects.push(`${runId}: effect ran ${count} times, ${expected} expected`);
    const events = await runtime.trace.read(runId);
    const late = stepWorkAfterEnd(events);
    if (expected > 1) {
      const joins = events.filter((event) => event.kind === "group.joined").length;
      fanOuts.push({ runId, done: state?.status === "done", joins });
    }
    if (late.length > 0) lateWork.push(`${runId}: ${late.map((event) => `${event.kind}@${event.seq}`).join(", ")} after the run ended`);
  }

  const failedJobs: string[] = [];
  for (const queue of runtime.queues.all()) {
    for (const job of await queue.getFailed(0, 1_000)) failedJobs.push(`${queue.name} ${job.id}: ${job.failedReason}`);
  }

  return [
    { name: "every run ended", passed: notTerminal.length === 0, findings: notTerminal },
    {
      name: "every run done (or, cut by a crash inside its effect, escalated)",
      passed: notDone.length === 0,
      findings: [...notDone, ...cutInEffect],
    },
    { name: "no run lost", passed: lost.length === 0, findings: lost.map((runId) => `${runId}: no state`) },
    { name: "every effect exactly once (or escalated as unknown)", passed: effects.length === 0, findings: effects },
    { name: "no step work after its run ended", passed: lateWork.length === 0, findings: lateWork },
    fanOutJoinCheck(fanOuts),
    { name: "no job left failed", passed: failedJobs.length === 0, findings: failedJobs },
  ];
}

export interface FanOutRun {
  runId: string;
  done: boolean;
  /** How many `group.joined` events its trace holds. */
  joins: number;
}

/**
 * A group joins once, however its children's workers were lost and its
 * events redelivered. Only a fan-out that ended done has a join to count;
 * when fan-outs were submitted and none ended done, nothing was checked,
 * and that is reported as a failure rather than a pass.
 */
export function fanOutJoinCheck(runs: readonly FanOutRun[]): Check {
  const checked = runs.filter((run) => run.done);
  const findings = checked.filter((run) => run.joins !== 1).map((run) => `${run.runId}: its group joined ${run.joins} times`);
  if (runs.length > 0 && checked.length === 0) findings.push(`none of the ${runs.length} fan-out runs ended done: no join was checked`);
  return {
    name: `every fan-out that ended done joined once (${checked.length} of ${runs.length} fan-outs ended done)`,
    passed: findings.length === 0,
    findings,
  };
}

/** The executor's escalation for a call whose intent was recorded and whose outcome never was. */
function cutInsideEffect(state: RunState): boolean {
  return state.status === "escalated" && (state.stopReason ?? "").includes("outcome unknown after a crash");
}

/** Ended, or escalated: waiting for a person is as far as a run goes on its own. */
export function hasSettled(state: RunState): boolean {
  return isTerminal(state.status) || state.status === "escalated";
}

async function effectCount(workspaceRoot: string, runId: string): Promise<number> {
  const text = await readFile(join(workspaceRoot, runId, EFFECTS_FILE), "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).length;
}

/**
 * Step work that started after the run ended. Judged by when each event
 * happened (`ts`; every process of the suite shares one clock), not by its
 * seq: a step's turn is written once, so a turn the end cut off lands after
 * the end event with the calls it made before it.
 */
export function stepWorkAfterEnd(events: readonly TraceEvent[]): TraceEvent[] {
  const end = events.find((event) => RUN_ENDS.has(event.kind));
  if (!end) return [];
  const endedAt = Date.parse(end.ts);
  return events.filter((event) => event.seq > end.seq && Date.parse(event.ts) > endedAt && STEP_WORK(event.kind));
}
