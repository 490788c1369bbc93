import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { RecordedCommand } from "./command-timeline.ts";
import { percentile } from "./measure.ts";

type Sent = RecordedCommand & { process: string };

/** The commands of a dispatch cycle's critical path, in order: a round trip each, the work of a role between them. */
const PATH = [
  ["step job added (controller)", "A"],
  ["step job taken (step worker)", "B"],
  ["intake read", "C"],
  ["claim and checkpoint read", "D"],
  ["turn write", "E"],
  ["step.finished added", "F"],
  ["step.finished taken (evaluate role)", "G"],
  ["compare-and-set", "H"],
] as const;

/**
 * Where a dispatch cycle's time goes, from the commands every process of
 * `bench:dispatch` recorded (REIN_BENCH_TIMELINE): for each Rein cycle, the
 * round trip of each command on its critical path and the work between two
 * of them, as medians over the cycles. Rows in path order.
 */
export async function dispatchTimeline(
  dir: string,
): Promise<{ rows: { segment: string; micros: number; roundTrip: boolean }[]; cycles: number }> {
  const sent: Sent[] = [];
  for (const file of await readdir(dir)) {
    if (!file.endsWith(".json")) continue;
    for (const command of JSON.parse(await readFile(join(dir, file), "utf8")) as RecordedCommand[])
      sent.push({ ...command, process: file });
  }
  sent.sort((a, b) => a.sent - b.sent);
  const byRun = new Map<string, Sent[]>();
  for (const command of sent) if (command.runId) byRun.set(command.runId, [...(byRun.get(command.runId) ?? []), command]);

  const segments = new Map<string, number[]>();
  const note = (segment: string, from: number, to: number) => segments.set(segment, [...(segments.get(segment) ?? []), (to - from) * 1000]);
  let cycles = 0;
  for (const commands of byRun.values()) {
    const path = cyclePath(commands, sent);
    if (!path) continue;
    cycles += 1;
    for (const [index, [label]] of PATH.entries()) {
      const command = path[index] as Sent;
      note(`${label}: round trip`, command.sent, command.replied as number);
      const next = path[index + 1];
      if (next) note(`  then, until ${(PATH[index + 1] as (typeof PATH)[number])[0]}`, command.replied as number, next.sent);
    }
  }
  return {
    rows: [...segments].map(([segment, micros]) => ({
      segment,
      micros: percentile(micros, 50),
      roundTrip: segment.endsWith("round trip"),
    })),
    cycles,
  };
}

/** A's to H's command of one run's cycle, or undefined when the run has no complete cycle on record. */
function cyclePath(commands: readonly Sent[], all: readonly Sent[]): Sent[] | undefined {
  const first = (after: number, match: (command: Sent) => boolean, within: readonly Sent[] = commands) =>
    within.find((command) => command.sent >= after && match(command));
  const lastBefore = (before: number, after: number, process: string, match: (command: Sent) => boolean) =>
    all.findLast((command) => command.sent < before && command.sent >= after && command.process === process && match(command));
  const a = first(0, (command) => command.name === "addStandardJob" && command.queue === "step");
  if (!a?.replied) return undefined;
  const c = first(a.sent, (command) => command.name === "hmget");
  const d = c && first(c.sent, (command) => command.name === "set");
  const e = d && commands.findLast((command) => command.name === "turnWrite" && command.sent >= d.sent);
  const f = e && first(e.sent, (command) => command.name === "addStandardJob" && command.queue === "evaluate");
  const h = f && first(f.sent, (command) => command.name === "compareAndSet");
  if (!c || !d || !e || !f || !h) return undefined;
  const b = lastBefore(c.sent, a.sent, c.process, (command) => command.name === "moveToActive" && command.queue === "step");
  const g = lastBefore(h.sent, f.sent, h.process, (command) => command.name === "moveToActive" && command.queue === "evaluate");
  const path = [a, b, c, d, e, f, g, h];
  return path.every((command) => command?.replied !== undefined) ? (path as Sent[]) : undefined;
}
