import { ReinError } from "@rein/contracts";
import { TraceEvent } from "@rein/contracts/run";
import type { Artifact, ReinRuntime } from "@rein/runtime";
import { typedTraceEvent } from "@rein/trace";
import { ExportHeader, PayloadRef, SidecarLine } from "./export-format.ts";
import type { TraceBundle } from "./trace-bundle.ts";

/**
 * Exported bytes → a bundle, every line validated, each payload against its
 * kind in the trace catalogue. A `$ref` payload is resolved from the
 * sidecar; a missing one is an error, not a silent hole.
 */
export function parseExport(jsonl: string, sidecar = ""): TraceBundle {
  const [headerLine, ...eventLines] = nonEmptyLines(jsonl);
  if (!headerLine) throw new ReinError("contract_invalid", "the export is empty; expected a rein.trace header line and events");
  const header = parseLine(ExportHeader, headerLine, "line 1 (header)");
  const payloads = new Map<string, Record<string, unknown>>();
  const blobs: Record<string, string> = {};
  const artifacts: Artifact[] = [];
  nonEmptyLines(sidecar).forEach((line, index) => {
    const entry = parseLine(SidecarLine, line, `sidecar line ${index + 1}`);
    if (entry.type === "payload") payloads.set(entry.id, entry.payload);
    else if (entry.type === "blob") blobs[entry.id] = entry.content;
    else {
      const { id, tool, type: _type, ...rest } = entry;
      artifacts.push({ artifactId: id, ...rest, ...(tool === null ? {} : { tool }) });
    }
  });
  const events = eventLines.map((line, index) => {
    const event = parseLine(TraceEvent, line, `line ${index + 2}`);
    const ref = PayloadRef.safeParse(event.payload);
    if (!ref.success) return typedTraceEvent(event);
    const payload = payloads.get(ref.data.$ref);
    if (!payload)
      throw new ReinError("contract_invalid", `event ${event.seq} references payload ${ref.data.$ref}, which the sidecar does not hold`);
    return typedTraceEvent({ ...event, payload });
  });
  if (events.length !== header.eventCount) {
    throw new ReinError(
      "contract_invalid",
      `the header announces ${header.eventCount} events but the file holds ${events.length}; expected a complete export`,
    );
  }
  return { runId: header.runId, state: header.state, events, blobs, artifacts };
}

/** Loads a bundle into the runtime's Redis under its prefix: state, trace, blobs and artifacts with their ids. */
export async function importBundle(runtime: ReinRuntime, bundle: TraceBundle): Promise<void> {
  if (bundle.state && (await runtime.runs.get(bundle.runId))) {
    throw new ReinError(
      "version_conflict",
      `run ${bundle.runId} already exists under prefix ${runtime.keys.prefix}; expected a prefix without it`,
    );
  }
  await runtime.trace.load(bundle.runId, bundle.events, bundle.blobs);
  for (const artifact of bundle.artifacts) {
    // ArtifactStore.put mints new ids; an import keeps the recorded ones, so the events' references still hold.
    const key = runtime.keys.artifact(artifact.artifactId);
    const multi = runtime.redis.multi().hset(key, {
      runId: artifact.runId,
      content: artifact.content,
      bytes: String(artifact.bytes),
      tool: artifact.tool ?? "",
      mediaType: artifact.mediaType,
      createdAt: artifact.createdAt,
    });
    const ttl = runtime.config.retention.artifactTtlSeconds;
    if (ttl) multi.expire(key, ttl);
    await multi.exec();
  }
  if (bundle.state) await runtime.runs.create(bundle.state);
}

function parseLine<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } } },
  line: string,
  where: string,
): T {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (error) {
    throw new ReinError("contract_invalid", `${where} is not JSON; expected one JSON object per line`, { cause: error });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ReinError("contract_invalid", `${where} does not match the export format: ${parsed.error.message}`);
  return parsed.data;
}

const nonEmptyLines = (text: string): string[] => text.split("\n").filter((line) => line.length > 0);
