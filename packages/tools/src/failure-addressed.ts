import type { ToolCallRecord } from "@rein/contracts";

/** Words that say a call failed; a sentence about a failure uses one of them. */
const FAILURE_WORDS =
  /\b(fail(?:ed|s|ure)?|error(?:ed|s)?|timed? ?out|refused|rejected|invalid|did not (?:work|succeed|run)|could not|cannot|couldn't)\b/i;
/** Words that say why a failure does not matter. */
const WHY_WORDS =
  /\b(because|since|instead|expected|harmless|unrelated|irrelevant|not needed|not required|does not matter|doesn't matter|no longer matters|superseded|not affect|not change)\b/i;

/**
 * Whether a failed call was dealt with: the same tool was called again with
 * different arguments and succeeded, or the step's final text has a sentence
 * that names the call (its tool or observation id), says it failed, and says
 * why that does not matter. A later call of any other tool, or the same
 * call repeated, does not count: the failure would be forgotten, not handled.
 */
export function isFailureAddressed(records: readonly ToolCallRecord[], index: number, finalText: string | undefined): boolean {
  const failed = records[index];
  // A call that waited for approval is settled by the approval flow: the resumed call records what happened.
  if (!failed || failed.status === "ok" || failed.status === "pending_approval") return true;
  const retriedDifferently = records
    .slice(index + 1)
    .some((later) => later.name === failed.name && later.argsHash !== failed.argsHash && later.status === "ok");
  return retriedDifferently || explainedIn(finalText ?? "", failed);
}

function explainedIn(text: string, failed: ToolCallRecord): boolean {
  return text
    .split(/(?<=[.!?;])\s+|\n+/)
    .some(
      (sentence) =>
        (sentence.includes(failed.name) || sentence.includes(failed.observationId)) &&
        FAILURE_WORDS.test(sentence) &&
        WHY_WORDS.test(sentence),
    );
}

/** The records with `addressed` derived from what came after each failed call. */
export function withAddressedFailures(records: readonly ToolCallRecord[], finalText: string | undefined): ToolCallRecord[] {
  return records.map((record, index) =>
    record.status === "ok" ? record : { ...record, addressed: isFailureAddressed(records, index, finalText) },
  );
}
