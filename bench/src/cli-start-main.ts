/**
 * `pnpm --filter @rein/bench bench:cli`: only the "CLI starts" step of
 * `pnpm bench`, printed as the same table, for checking start-up work
 * without the minutes the full bench takes. Build first (`npm run build`).
 */
import { redisUrlFromEnv } from "@rein/runtime";
import { withBenchEnv } from "./bench-env.ts";
import { cliStarts } from "./cli-start.ts";
import { measure } from "./measure.ts";
import { renderTable } from "./report.ts";

const redisUrl = redisUrlFromEnv();
const starts = await withBenchEnv(redisUrl, "cli", async (env) => cliStarts(env, 7));
process.stdout.write(
  `${renderTable([
    measure("CPU per `rein --help` (user+sys)", starts.help, "ms", starts.bareNode, { of: "value", op: "<=", limit: 500 }),
    measure("CPU per `rein status <id>` (user+sys)", starts.status, "ms", starts.bareNode, { of: "value", op: "<=", limit: 500 }),
  ])}\n\nfloor: a bare node start; median of 7 starts each\n`,
);
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);
