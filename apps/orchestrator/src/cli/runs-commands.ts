import { ReinError } from "@rein/contracts";
import type { ReinRuntime } from "@rein/runtime";
import { parseAge, pruneRuns } from "../trace/prune-runs.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import { usageOf } from "./command-help.ts";
import type { CommandHandler, ParsedFlags } from "./command-spec.ts";
import { RUNS } from "./command-specs.ts";
import { out } from "./output.ts";

export const runsCommand: CommandHandler<typeof RUNS> = async ({ subcommand }, flags) => {
  if (subcommand === "list") return withRuntime(flags, (runtime) => listRuns(runtime, flags.limit ?? 20));
  const olderThan = flags["older-than"];
  if (olderThan === undefined) throw new ReinError("goal_invalid", `expected --older-than, e.g. 30d: ${usageOf(RUNS)}`);
  const olderThanMs = parseAge(olderThan);
  return withRuntime(flags, (runtime) => prune(runtime, olderThanMs, Boolean(flags["dry-run"]), Boolean(flags["include-active"])));
};

async function listRuns(runtime: ReinRuntime, limit: number): Promise<number> {
  for (const runId of await runtime.runs.list(limit)) {
    const state = await runtime.runs.get(runId);
    out(`${runId}  ${state?.createdAt ?? "?"}  ${(state?.status ?? "?").padEnd(16)} ${state?.goal.text.slice(0, 60) ?? ""}`);
  }
  return 0;
}

async function prune(runtime: ReinRuntime, olderThanMs: number, dryRun: boolean, includeActive: boolean): Promise<number> {
  const result = await pruneRuns(runtime, { olderThanMs, dryRun, includeActive });
  for (const runId of result.pruned) out(`${dryRun ? "would prune" : "pruned"} ${runId}`);
  for (const kept of result.kept) out(`kept ${kept.runId}: still ${kept.status} (--include-active to prune it)`);
  out(`${result.pruned.length} run(s) ${dryRun ? "would be " : ""}pruned, ${result.kept.length} kept`);
  return 0;
}

async function withRuntime(flags: ParsedFlags<typeof RUNS>, body: (runtime: ReinRuntime) => Promise<number>): Promise<number> {
  const context = await openContext({ ...contextFlags(flags) });
  try {
    return await body(context.runtime);
  } finally {
    await Promise.all(context.runtime.queues.all().map((queue) => queue.waitUntilReady()));
    await context.close();
  }
}
