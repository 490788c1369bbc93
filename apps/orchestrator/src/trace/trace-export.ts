import { canonicalJson, hashOf } from "@rein/contracts";
import { EXPORT_FORMAT, type ExportHeader, type SidecarLine } from "./export-format.ts";
import type { TraceBundle } from "./trace-bundle.ts";

/**
 * Payloads larger than this (bytes of canonical JSON) go to the sidecar and
 * the event line keeps a `{ "$ref": "sha256:…" }`: the JSONL stays readable
 * line by line with grep and jq.
 * @defaultValue 8192
 */
export const INLINE_PAYLOAD_LIMIT = 8192;

export interface RenderedExport {
  /** Header line, then one canonical event per line in seq order. */
  jsonl: string;
  /** Large payloads, prompt blobs and artifacts, one canonical line each, sorted; empty when there are none. */
  sidecar: string;
}

/**
 * A bundle → the exported bytes. Pure and canonical (sorted keys, events in
 * seq order, sidecar sorted by type and id), so the same run always exports
 * to the same bytes.
 */
export function renderExport(bundle: TraceBundle, inlineLimit = INLINE_PAYLOAD_LIMIT): RenderedExport {
  const events = [...bundle.events].sort((a, b) => a.seq - b.seq);
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    formatVersion: 1,
    runId: bundle.runId,
    eventCount: events.length,
    state: bundle.state,
  };
  const sidecar = new Map<string, SidecarLine>();
  const lines = [canonicalJson(header)];
  for (const event of events) {
    const payloadJson = canonicalJson(event.payload);
    if (Buffer.byteLength(payloadJson) <= inlineLimit) {
      lines.push(canonicalJson(event));
      continue;
    }
    const id = hashOf(event.payload);
    sidecar.set(`payload ${id}`, { type: "payload", id, payload: event.payload });
    lines.push(canonicalJson({ ...event, payload: { $ref: id } }));
  }
  for (const [id, content] of Object.entries(bundle.blobs)) sidecar.set(`blob ${id}`, { type: "blob", id, content });
  for (const artifact of bundle.artifacts) {
    sidecar.set(`artifact ${artifact.artifactId}`, {
      type: "artifact",
      id: artifact.artifactId,
      runId: artifact.runId,
      content: artifact.content,
      bytes: artifact.bytes,
      tool: artifact.tool ?? null,
      mediaType: artifact.mediaType,
      createdAt: artifact.createdAt,
    });
  }
  const sidecarLines = [...sidecar.keys()].sort().map((key) => canonicalJson(sidecar.get(key)));
  return { jsonl: joinLines(lines), sidecar: joinLines(sidecarLines) };
}

/** `--json`: the raw events, one canonical line each, payloads inline. */
export function renderJsonLines(bundle: Pick<TraceBundle, "events">): string {
  return joinLines([...bundle.events].sort((a, b) => a.seq - b.seq).map((event) => canonicalJson(event)));
}

const joinLines = (lines: readonly string[]): string => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);
