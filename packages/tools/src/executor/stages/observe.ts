import type { Provenance } from "@rein/contracts/calls";
import type { AnyTool } from "../../define-tool.ts";
import { type CallStage, type Execution, need, stageOrderError } from "../call-in-progress.ts";
import type { CallEnding } from "../call-end-records.ts";
import { ERROR_MESSAGE_CHARS } from "./run-call.ts";

/** The observation the model reads next, with the provenance and freshness of what it shows. */
export const observe: CallStage = async (state) => {
  const tool = need(state, "tool");
  const execution = need(state, "execution");
  if (execution.kind === "output") throw stageOrderError("a fresh output reached observe before record-outcome rendered it");
  const trust = trustOf(tool);
  const { attempts, durationMs } = execution;
  if (execution.kind === "result" && execution.result.empty) {
    return { ...okEnding(execution, trust), empty: true, content: `${tool.name} returned nothing: its result was empty.` };
  }
  const prepared = need(state, "prepared");
  const presented = need(state, "presented");
  const shown = {
    flags: presented.flags,
    truncated: prepared.truncated && prepared.artifactId ? { ...prepared.truncated, artifactId: prepared.artifactId } : undefined,
    artifactId: prepared.artifactId,
  };
  if (execution.kind === "result")
    return { ...okEnding(execution, trust), ...shown, content: presented.text, images: execution.result.images };
  return {
    status: execution.status,
    trust,
    failure: execution.failure,
    message: prepared.shown.slice(0, ERROR_MESSAGE_CHARS),
    durationMs,
    attempts,
    replayed: execution.replayed,
    ...shown,
    content: `${tool.name} failed${attempts > 1 ? ` after ${attempts} attempts` : ""}.\n${presented.text}\n${adviceFor(execution.failure)}`,
  };
};

function okEnding(execution: Extract<Execution, { kind: "result" }>, trust: Provenance["trust"]): CallEnding {
  return {
    status: "ok",
    content: "",
    trust,
    durationMs: execution.durationMs,
    attempts: execution.attempts,
    rawOutputHash: execution.result.rawOutputHash,
    observedAt: execution.result.observedAt,
    cacheHit: execution.source === "cache",
    replayed: execution.source === "replayed",
  };
}

function trustOf(tool: AnyTool): Provenance["trust"] {
  return tool.trust ?? (tool.effect === "external" ? "external" : "tool");
}

function adviceFor(failure: string): string {
  switch (failure) {
    case "retryable":
      return "This looks transient; the same call may work later.";
    case "different_action":
      return "Retrying the same call will fail the same way; change the arguments or choose another action.";
    default:
      return "This failure is not something a different call can fix; report it.";
  }
}
