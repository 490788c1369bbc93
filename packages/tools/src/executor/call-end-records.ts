import { type ToolCallRecord, type Sha256, sha256, newId } from "@rein/contracts";
import type { FailureClass, Observation, Provenance, ToolCallStatus, ToolResultEvent } from "@rein/contracts/calls";
import type { ToolCallOutcome } from "../tool-executor.ts";
import type { CallTrace } from "./call-trace.ts";

/** How a call ended, whichever stage ended it. */
export interface CallEnding {
  status: ToolCallStatus;
  content: string;
  trust: Provenance["trust"];
  failure?: FailureClass;
  /** A short statement for the result event and logs. */
  message?: string;
  flags?: string[];
  images?: Observation["images"];
  empty?: boolean;
  truncated?: Observation["truncated"];
  artifactId?: string;
  rawOutputHash?: string;
  durationMs?: number;
  attempts?: number;
  observedAt?: string;
  cacheHit?: boolean;
  replayed?: boolean;
  suspend?: ToolCallOutcome["suspend"];
}

export interface CallIdentity {
  callId: string;
  tool: string;
  index: number;
  argsHash: Sha256;
  fingerprint: Sha256;
}

/**
 * Turns an ending into the outcome the worker gets, and writes the last two
 * trace events of every call: `tool.result` (what the runtime did) and
 * `observation.made` (what the model will see).
 */
export async function endCall(call: CallIdentity, ending: CallEnding, trace: CallTrace, now: () => number): Promise<ToolCallOutcome> {
  const observedAt = ending.observedAt ?? new Date(now()).toISOString();
  const observation: Observation = {
    id: newId("obs"),
    callId: call.callId,
    tool: call.tool,
    status: ending.status,
    content: ending.content,
    empty: ending.empty ?? false,
    truncated: ending.truncated,
    flags: ending.flags ?? [],
    ...(ending.images && ending.images.length > 0 ? { images: ending.images } : {}),
    provenance: {
      tool: call.tool,
      argsHash: call.argsHash,
      observedAt,
      cacheHit: ending.cacheHit ?? false,
      replayed: ending.replayed ?? false,
      trust: ending.trust,
    },
  };
  const result: ToolResultEvent = {
    callId: call.callId,
    name: call.tool,
    status: ending.status,
    durationMs: ending.durationMs ?? 0,
    rawOutputHash: ending.rawOutputHash,
    artifactId: ending.artifactId,
    failure: ending.failure,
    message: ending.message,
    attempts: ending.attempts ?? 1,
  };
  const contentHash = sha256(observation.content);
  const record: ToolCallRecord = {
    index: call.index,
    name: call.tool,
    argsHash: call.argsHash,
    fingerprint: call.fingerprint,
    status: ending.status,
    resultHash: ending.rawOutputHash ?? contentHash,
    observationId: observation.id,
    addressed: ending.status === "ok",
  };
  await trace.emit("tool.result", { ...result }, { outputHash: ending.rawOutputHash, durationMs: result.durationMs });
  await trace.emit(
    "observation.made",
    {
      observationId: observation.id,
      status: observation.status,
      flags: observation.flags,
      empty: observation.empty,
      truncated: observation.truncated ?? null,
      provenance: observation.provenance,
      contentBytes: Buffer.byteLength(observation.content),
      images: observation.images?.map((image) => ({ mediaType: image.mediaType, bytes: Buffer.byteLength(image.data, "base64") })) ?? [],
    },
    { outputHash: contentHash },
  );
  return { observation, record, result, ...(ending.suspend ? { suspend: ending.suspend } : {}) };
}
