import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ReinError } from "@rein/contracts";
import { type AnyTool, toolsExportOf } from "@rein/tools";
import { Baseline, baselineOf, regressionsAgainst } from "../eval/baseline.ts";
import { loadSuite } from "../eval/eval-suite.ts";
import { runSuite } from "../eval/run-suite.ts";
import { renderCase, renderTotals } from "../eval/suite-report.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import type { CommandHandler } from "./command-spec.ts";
import type { EVAL } from "./command-specs.ts";
import { err, out } from "./output.ts";

export const evalCommand: CommandHandler<typeof EVAL> = async ({ suiteDir }, flags) => {
  const suite = loadSuite(suiteDir);
  const baseline = flags.baseline === undefined ? undefined : readBaseline(flags.baseline);
  const toolOverrides = flags["tools-module"] === undefined ? [] : await importTools(flags["tools-module"]);
  const context = await openContext({ ...contextFlags(flags), embedRedis: true });
  try {
    const result = await runSuite(context.config, suite, {
      toolOverrides,
      onCase: flags.json ? undefined : (item) => out(renderCase(item)),
    });
    if (flags.json) out(JSON.stringify(result, null, 2));
    else out(renderTotals(result));
    const baselineFile = flags["write-baseline"];
    if (baselineFile !== undefined) {
      await writeFile(baselineFile, `${JSON.stringify(baselineOf(result), null, 2)}\n`);
      err(`baseline written to ${baselineFile}`);
    }
    if (!baseline) return result.cases.every((item) => item.passed) ? 0 : 1;
    const regressions = regressionsAgainst(result, baseline, suite.tolerance);
    for (const regression of regressions) err(`regression: ${regression}`);
    if (regressions.length === 0) out(`no regression against ${flags.baseline}`);
    return regressions.length === 0 ? 0 : 1;
  } finally {
    await Promise.all(context.runtime.queues.all().map((queue) => queue.waitUntilReady()));
    await context.close();
  }
};

function readBaseline(file: string): Baseline {
  if (!existsSync(file)) throw new ReinError("not_found", `no baseline at ${file}; write one with --write-baseline`);
  const parsed = Baseline.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new ReinError("config_invalid", `${file} is not a baseline: ${parsed.error.message}`);
  return parsed.data;
}

/** A module exporting `tools: AnyTool[]`, which replace the tools of the same names for every case. */
async function importTools(file: string): Promise<AnyTool[]> {
  return toolsExportOf(await import(pathToFileURL(resolve(file)).href), file);
}
