import { ReinError } from "@rein/core";
import { loadExample } from "../examples/load-example.ts";
import { exampleOf } from "../replay/example-of.ts";
import { renderReplayReport } from "../replay/replay-report.ts";
import { replayRun } from "../replay/replay-run.ts";
import { replayStep } from "../replay/replay-step.ts";
import { openIsolatedRuntime } from "../replay/isolated-runtime.ts";
import { loadBundle } from "../trace/trace-bundle.ts";
import { readExport } from "../trace/trace-files.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import type { CommandHandler } from "./command-spec.ts";
import type { REPLAY } from "./command-specs.ts";
import { resolveModels } from "./model-resolution.ts";
import { err } from "./output.ts";

export const replayCommand: CommandHandler<typeof REPLAY> = async ({ source }, flags) => {
  const context = await openContext({ ...contextFlags(flags), embedRedis: true });
  try {
    const bundle = source.endsWith(".jsonl") ? await readExport(source) : await loadBundle(context.runtime, source);
    if (bundle.events.length === 0) throw new ReinError("not_found", `no trace for run ${source}`);
    const exampleName = flags.example ?? (bundle.state ? exampleOf(bundle.state.goal) : undefined);
    const example = exampleName ? await loadExample(exampleName) : undefined;
    if (example) err(`replaying with the tools of example ${example.name}`);
    // The example's config applies as it did when the run ran (`rein run` decides it the same way).
    const deployment = example ? resolveModels({ configFile: flags.config, example }).deployment : undefined;
    const scratch = await openIsolatedRuntime(context.config, "replay", deployment ?? {});
    try {
      const mode = flags["stub-tools"] ? "stub" : "real";
      const allowExternal = Boolean(flags["allow-external"]);
      const tools = example?.tools ?? [];
      const seedDir = example?.seedDir;
      const report =
        flags.step !== undefined
          ? await replayStep(scratch, bundle, flags.step, { mode, allowExternal, tools, seedDir })
          : await replayRun(scratch, bundle, { mode, allowExternal, fromStep: flags["from-step"], tools, seedDir });
      process.stdout.write(renderReplayReport(report));
      return report.identical ? 0 : 1;
    } finally {
      await scratch.discard();
    }
  } finally {
    await Promise.all(context.runtime.queues.all().map((queue) => queue.waitUntilReady()));
    await context.close();
  }
};
