import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { measure, targetOf } from "../src/measure.ts";
import { parseResults, readmeTable, withReadmeTable } from "../src/readme-table.ts";
import { renderTable } from "../src/report.ts";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const PUBLISHED = readFileSync(new URL("../results/published.json", import.meta.url), "utf8");

describe("the README's performance table", () => {
  it("is the table of the published bench results, row for row", () => {
    expect(readmeTable(README)).toBe(renderTable(parseResults(PUBLISHED)));
  });

  it("publishes rows whose ratio and met follow from their value, floor and target", () => {
    for (const row of parseResults(PUBLISHED)) {
      expect(row, row.name).toEqual(measure(row.name, row.value, row.unit, row.floor, targetOf(row.target)));
    }
  });

  it("is replaced whole when results are published again", () => {
    const rows = [measure("dispatch cycle p50", 3, "ms", 1, { of: "ratio", op: "<=", limit: 2.5 })];
    const updated = withReadmeTable(README, rows);
    expect(readmeTable(updated)).toBe(renderTable(rows));
    expect(updated.replace(readmeTable(updated), "")).toBe(README.replace(readmeTable(README), ""));
  });

  it("refuses results that are not bench rows", () => {
    expect(() => parseResults(JSON.stringify([{ name: "x", value: "fast" }]))).toThrow();
    expect(() => parseResults("[]")).toThrow();
  });
});
