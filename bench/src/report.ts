import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Measure } from "./measure.ts";

const format = (value: number | null, digits = 2): string => {
  if (value === null) return "—";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(digits);
};

/** The table `pnpm bench` prints. */
export function renderTable(measures: readonly Measure[]): string {
  const rows = measures.map((entry) => [
    entry.name,
    `${format(entry.value)} ${entry.unit}`,
    entry.floor === null ? "—" : `${format(entry.floor)} ${entry.unit}`,
    entry.ratio === null ? "—" : `${format(entry.ratio)}×`,
    entry.target ?? "—",
    entry.met === null ? "—" : entry.met ? "yes" : "NO",
  ]);
  const header = ["measure", "value", "floor (raw)", "ratio", "target", "met"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

export async function writeResults(path: string, measures: readonly Measure[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(measures, null, 2)}\n`);
}
