// Writes docs/trace-events.md from the trace catalogue (npm run docs:trace-events).
import { writeFileSync } from "node:fs";
import { renderTraceEventsDoc } from "../packages/trace/src/trace-events-doc.ts";

const target = new URL("../docs/trace-events.md", import.meta.url);
writeFileSync(target, renderTraceEventsDoc());
process.stdout.write(`wrote ${target.pathname}\n`);
