import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { sidecarPathOf } from "./export-format.ts";
import type { TraceBundle } from "./trace-bundle.ts";
import { renderExport } from "./trace-export.ts";
import { parseExport } from "./trace-import.ts";

/** Writes `file.jsonl` and, when there is anything large, `file.artifacts.jsonl` beside it. */
export async function writeExport(bundle: TraceBundle, path: string): Promise<{ jsonl: string; sidecar?: string }> {
  const rendered = renderExport(bundle);
  await writeFile(path, rendered.jsonl);
  if (rendered.sidecar.length === 0) return { jsonl: path };
  const sidecar = sidecarPathOf(path);
  await writeFile(sidecar, rendered.sidecar);
  return { jsonl: path, sidecar };
}

/** Reads an export and its sidecar (when present). */
export async function readExport(path: string): Promise<TraceBundle> {
  const sidecar = sidecarPathOf(path);
  return parseExport(await readFile(path, "utf8"), existsSync(sidecar) ? await readFile(sidecar, "utf8") : "");
}
