/**
 * `npm run bench:readme`: publishes the last `pnpm bench` results. Copies
 * bench/results/latest.json to bench/results/published.json (committed)
 * and regenerates the README's performance table from it.
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseResults, withReadmeTable } from "./readme-table.ts";

const LATEST = fileURLToPath(new URL("../results/latest.json", import.meta.url));
const PUBLISHED = fileURLToPath(new URL("../results/published.json", import.meta.url));
const README = fileURLToPath(new URL("../../README.md", import.meta.url));

const measures = parseResults(await readFile(LATEST, "utf8"));
await writeFile(PUBLISHED, `${JSON.stringify(measures, null, 2)}\n`);
await writeFile(README, withReadmeTable(await readFile(README, "utf8"), measures));
process.stdout.write(`published ${measures.length} rows to ${PUBLISHED} and the README\n`);
