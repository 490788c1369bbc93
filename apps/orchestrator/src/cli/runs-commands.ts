import { ReinError } from "@rein/core";
import { parseAge, pruneRuns } from "../trace/prune-runs.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import type { Command } from "./commands.ts";
import { out } from "./output.ts";

const USAGE = "runs list [--limit N] | runs prune --older-than 30d [--dry-run] [--include-active]";

export const runsCommand: Command = {
  name: "runs",
  usage: USAGE,
  summary: "list recent runs, or delete old runs' state, trace and artifacts",
  options: {
    limit: { type: "string" },
    "older-than": { type: "string" },
    "dry-run": { type: "boolean" },
    "include-active": { type: "boolean" },
  },
  async run(positionals, flags) {
    const action = positionals[0];
    if (action !== "list" && action !== "prune") throw new ReinError("goal_invalid", `expected list or prune: rein ${USAGE}`);
    if (action === "prune" && typeof flags["older-than"] !== "string") throw new ReinError("goal_invalid", `expected --older-than, e.g. 30d: rein ${USAGE}`);
    const context = await openContext({ ...contextFlags(flags) });
    try {
      const { runtime } = context;
      if (action === "list") {
        for (const runId of await runtime.runs.list(Number(flags.limit ?? 20))) {
          const state = await runtime.runs.get(runId);
          out(`${runId}  ${state?.createdAt ?? "?"}  ${(state?.status ?? "?").padEnd(16)} ${state?.goal.text.slice(0, 60) ?? ""}`);
        }
        return 0;
      }
      const dryRun = Boolean(flags["dry-run"]);
      const result = await pruneRuns(runtime, { olderThanMs: parseAge(flags["older-than"] as string), dryRun, includeActive: Boolean(flags["include-active"]) });
      for (const runId of result.pruned) out(`${dryRun ? "would prune" : "pruned"} ${runId}`);
      for (const kept of result.kept) out(`kept ${kept.runId}: still ${kept.status} (--include-active to prune it)`);
      out(`${result.pruned.length} run(s) ${dryRun ? "would be " : ""}pruned, ${result.kept.length} kept`);
      return 0;
    } finally {
      await Promise.all(context.runtime.queues.all().map((queue) => queue.waitUntilReady()));
      await context.close();
    }
  },
};
