import { isTraceEventOf, type TypedTraceEvent } from "@rein/trace";
import { lineDiff } from "./line-diff.ts";
import type { RecordedOutputs } from "./recorded-outputs.ts";
import { maskVolatile } from "./volatile-fields.ts";

export interface Divergence {
  stepId: string;
  /** The call's index within its step. */
  callIndex: number | null;
  tool: string;
  expected: { status: string; hash: string | null } | null;
  actual: { status: string; hash: string | null } | null;
  /** A readable diff of the two outputs, when both are known. */
  diff?: string;
  reason: string;
}

export interface Comparison {
  identical: boolean;
  compared: number;
  /** Calls whose hashes differ but whose outputs are equal once volatile fields are masked. */
  maskedMatches: { stepId: string; callIndex: number; tool: string; fields: string[] }[];
  divergence?: Divergence;
}

interface ResultView {
  seq: number;
  stepId: string;
  index: number | null;
  tool: string;
  status: string;
  hash: string | null;
}

const resultsOf = (events: readonly TypedTraceEvent[]): ResultView[] =>
  events
    .filter((event) => isTraceEventOf(event, "tool.result"))
    .map((event) => ({
      seq: event.seq,
      stepId: event.stepId ?? "-",
      index: event.payload.index,
      tool: event.payload.name,
      status: event.payload.status,
      hash: event.payload.rawOutputHash ?? null,
    }));

/**
 * Compares the tool results of a recording and its replay, step by step in
 * call order, and returns the first divergence by recorded order: a
 * different tool, status or output hash, or a call one side made and the
 * other did not. Hashes that differ only in volatile fields count as equal.
 */
export function compareTraces(
  recorded: { runId: string; events: readonly TypedTraceEvent[]; outputs: RecordedOutputs },
  replay: { runId: string; events: readonly TypedTraceEvent[]; outputs: RecordedOutputs },
  options: { fromStep?: string } = {},
): Comparison {
  const expected = resultsOf(recorded.events);
  const actual = resultsOf(replay.events);
  const steps = [...new Set([...expected, ...actual].map((result) => result.stepId))];
  const firstStep = options.fromStep ? steps.indexOf(options.fromStep) : 0;
  const maskedMatches: Comparison["maskedMatches"] = [];
  let compared = 0;
  const candidates: { order: number; divergence: Divergence }[] = [];
  for (const stepId of steps.slice(Math.max(0, firstStep))) {
    const left = expected.filter((result) => result.stepId === stepId);
    const right = actual.filter((result) => result.stepId === stepId);
    for (let position = 0; position < Math.max(left.length, right.length); position += 1) {
      const want = left[position];
      const got = right[position];
      const order = want?.seq ?? Number.MAX_SAFE_INTEGER - (right.length - position);
      if (!want || !got) {
        const only = want ?? got;
        if (only)
          candidates.push({
            order,
            divergence: {
              stepId,
              callIndex: only.index,
              tool: only.tool,
              expected: want ? { status: want.status, hash: want.hash } : null,
              actual: got ? { status: got.status, hash: got.hash } : null,
              reason: want ? "the replay did not make this call" : "the replay made a call the recording does not have",
            },
          });
        break;
      }
      compared += 1;
      if (want.tool === got.tool && want.status === got.status && want.hash === got.hash) continue;
      const before = recorded.outputs.forHash(want.hash ?? undefined);
      const after = replay.outputs.forHash(got.hash ?? undefined);
      if (want.tool === got.tool && want.status === got.status && before !== undefined && after !== undefined) {
        const maskedBefore = maskVolatile(before, recorded.runId);
        const maskedAfter = maskVolatile(after, replay.runId);
        if (maskedBefore.text === maskedAfter.text) {
          maskedMatches.push({
            stepId,
            callIndex: want.index ?? position,
            tool: want.tool,
            fields: [...new Set([...maskedBefore.masked, ...maskedAfter.masked])].sort(),
          });
          continue;
        }
      }
      candidates.push({
        order,
        divergence: {
          stepId,
          callIndex: want.index,
          tool: want.tool === got.tool ? want.tool : `${want.tool} → ${got.tool}`,
          expected: { status: want.status, hash: want.hash },
          actual: { status: got.status, hash: got.hash },
          ...(before !== undefined && after !== undefined ? { diff: lineDiff(before, after) } : {}),
          reason:
            want.tool !== got.tool
              ? "a different tool was called"
              : want.status !== got.status
                ? "the call ended with a different status"
                : "the tool returned different output",
        },
      });
      break;
    }
  }
  candidates.sort((a, b) => a.order - b.order);
  const divergence = candidates[0]?.divergence;
  return { identical: divergence === undefined, compared, maskedMatches, ...(divergence ? { divergence } : {}) };
}
