/**
 * The research-fanout example's tools: one status report per region, read
 * from ./data. Each report source answers slowly (its `latencyMs`, as a
 * remote status page would), which is what makes running the three look-ups
 * side by side worth it: the run takes about as long as the slowest one.
 */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
// Examples are not workspace packages; the tool kit's entry (and the zod it re-exports) is imported by path.
import { type AnyTool, defineTool, z } from "../../packages/tools/src/index.ts";

const DATA = join(import.meta.dirname, "data");
const Report = z.object({ region: z.string(), week: z.string(), requests: z.number(), errors: z.number(), latencyMs: z.number() });

const regionReport = (region: "eu" | "us" | "ap") =>
  defineTool({
    name: `read_${region}_report`,
    description: `Read the ${region} region's weekly request and error counts. Read-only.`,
    effect: "read",
    input: z.object({ week: z.string().describe("ISO week, e.g. 2026-W47") }),
    async run(args, context) {
      const report = Report.parse(JSON.parse(await readFile(join(DATA, `${region}.json`), "utf8")));
      await sleep(report.latencyMs, undefined, { signal: context.signal });
      if (report.week !== args.week) return { region, week: args.week, found: false as const, errorRatePct: 0, requests: 0, errors: 0 };
      const errorRatePct = Math.round((report.errors / report.requests) * 10_000) / 100;
      return { region, week: report.week, found: true as const, errorRatePct, requests: report.requests, errors: report.errors };
    },
    render: (output) =>
      output.found
        ? `${output.region} ${output.week}: ${output.errors} errors in ${output.requests} requests, error rate ${output.errorRatePct}%`
        : `${output.region}: no report for ${output.week}`,
  });

export const tools: AnyTool[] = [regionReport("eu"), regionReport("us"), regionReport("ap")];
