import { describe, expect, it } from "vitest";
import { renderExport, renderJsonLines } from "../../src/trace/trace-export.ts";
import { parseExport } from "../../src/trace/trace-import.ts";
import type { TraceBundle } from "../../src/trace/trace-bundle.ts";
import { fixtureEvents } from "./fixture-events.ts";

function bundle(): TraceBundle {
  const events = fixtureEvents();
  const big = events[3] as (typeof events)[number];
  big.payload = { ...big.payload, content: [{ type: "text", text: "x".repeat(10_000) }] };
  return {
    runId: "run_fixture",
    state: null,
    events,
    blobs: { "sha256:2": '"second"', "sha256:1": '"first"' },
    artifacts: [
      {
        artifactId: "art_1",
        runId: "run_fixture",
        content: "full output",
        bytes: 11,
        tool: "read_file",
        mediaType: "text/plain",
        createdAt: "2026-01-01T00:00:00.000Z",
      },
    ],
  };
}

describe("trace export format", () => {
  it("moves payloads over the limit to the sidecar and keeps a $ref in the event line", () => {
    const rendered = renderExport(bundle());
    const lines = rendered.jsonl.trimEnd().split("\n");
    expect(lines).toHaveLength(1 + fixtureEvents().length);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      format: "rein.trace",
      runId: "run_fixture",
      eventCount: fixtureEvents().length,
    });
    expect(JSON.parse(lines[4] as string).payload).toEqual({ $ref: expect.stringMatching(/^sha256:/) });
    expect(
      rendered.sidecar
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line).type),
    ).toEqual(["artifact", "blob", "blob", "payload"]);
  });

  it("is the same bytes whatever order the events and blobs arrive in, and parses back to the bundle", () => {
    const original = bundle();
    const shuffled = { ...original, events: [...original.events].reverse(), blobs: { "sha256:1": '"first"', "sha256:2": '"second"' } };
    expect(renderExport(shuffled)).toEqual(renderExport(original));
    const rendered = renderExport(original);
    const parsed = parseExport(rendered.jsonl, rendered.sidecar);
    expect(renderExport(parsed)).toEqual(rendered);
    expect(renderJsonLines(parsed)).toBe(renderJsonLines(original));
  });

  it("refuses an export whose sidecar lost a payload, or that was cut short", () => {
    const rendered = renderExport(bundle());
    expect(() => parseExport(rendered.jsonl, "")).toThrow(/references payload sha256:.* which the sidecar does not hold/);
    const cut = rendered.jsonl.split("\n").slice(0, 5).join("\n");
    expect(() => parseExport(cut, rendered.sidecar)).toThrow(/announces 24 events but the file holds 4/);
  });
});
