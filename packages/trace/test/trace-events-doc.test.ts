import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHECK_PREFIX, traceCatalogue } from "../src/trace-catalogue.ts";
import { renderTraceEventsDoc } from "../src/trace-events-doc.ts";

const docPath = new URL("../../../docs/trace-events.md", import.meta.url);

describe("docs/trace-events.md", () => {
  it("is what the catalogue generates (run `npm run docs:trace-events` after changing a kind)", () => {
    expect(readFileSync(docPath, "utf8"), "docs/trace-events.md is stale: run `npm run docs:trace-events`").toBe(renderTraceEventsDoc());
  });

  it("documents every kind that is not a check. copy of a call event", () => {
    const doc = renderTraceEventsDoc();
    const listed = Object.keys(traceCatalogue).filter((kind) => !kind.startsWith(CHECK_PREFIX) || kind === "check.command_finished");
    for (const kind of listed) expect(doc, kind).toContain(`### \`${kind}\``);
  });
});
