import { ReinError, sha256 } from "@rein/contracts";
import {
  assemblePrompt,
  type CallTraceEvent,
  expandPromptCopy,
  isCallTraceEvent,
  isTraceEventOf,
  PromptCopy,
  promptHash,
  type TypedTraceEvent,
} from "@rein/trace";

const partsOf = (copy: PromptCopy): string[] =>
  [copy.system, ...copy.messages, copy.tools, copy.output].filter((id): id is string => id !== null);
import { callKeyOf, endReasonOf, isRunEnd } from "./views/event-fields.ts";

/** The questions issue 7 says every finished run must answer from its trace. */
export const TRACE_QUESTIONS = [
  "what did the model see",
  "which tools could it see",
  "what did it ask for",
  "why was that allowed or refused",
  "what came back",
  "why did the run stop",
] as const;
export type TraceQuestion = (typeof TRACE_QUESTIONS)[number];

export interface QuestionAnswer {
  question: TraceQuestion;
  answered: boolean;
  /** Seqs of the events that answer it. */
  evidence: number[];
  /** What is missing, per event, when not answered. */
  gaps: string[];
}

// Kinds that end a call before the permission policy is asked, each with its reason in the payload.
const REFUSED_BEFORE_POLICY = new Set(["tool.refused", "tool.input_invalid"]);

/**
 * Checks, event by event, that the trace answers each question: every model
 * call has a prompt copy that reassembles to its input hash and lists its
 * tools; every tool call has a decision with a rule (or a refusal with a
 * reason), a result and an observation; the run has an end with a reason.
 */
export function answerQuestions(events: readonly TypedTraceEvent[], blobs: Readonly<Record<string, string>>): QuestionAnswer[] {
  const answers = new Map<TraceQuestion, QuestionAnswer>(
    TRACE_QUESTIONS.map((question) => [question, { question, answered: true, evidence: [], gaps: [] }]),
  );
  const note = (question: TraceQuestion, event: TypedTraceEvent, gap?: string) => {
    const answer = answers.get(question) as QuestionAnswer;
    if (gap) {
      answer.answered = false;
      answer.gaps.push(`seq ${event.seq} ${event.kind}: ${gap}`);
    } else answer.evidence.push(event.seq);
  };
  const byCall = new Map<string, CallTraceEvent[]>();
  for (const event of events) {
    if (isCallTraceEvent(event) && event.stepId) byCall.set(callKeyOf(event), [...(byCall.get(callKeyOf(event)) ?? []), event]);
  }
  // Each call's whole message list by inputHash: a copy names only what is new since the call it continues.
  const earlier = new Map<string, readonly string[]>();
  for (const event of events) {
    if (event.kind === "model.called") {
      const p = event.payload;
      const copy = PromptCopy.safeParse(p.prompt);
      const whole = copy.success ? expandPromptCopy(copy.data, earlier) : undefined;
      if (whole && event.inputHash) earlier.set(event.inputHash, whole.messages);
      const unassembled = whole ? assemblyProblem(whole, blobs) : undefined;
      if (!copy.success) note("what did the model see", event, "no prompt copy");
      else if (!whole) note("what did the model see", event, "the prompt copy continues a model call that is not in the trace");
      else if (unassembled) note("what did the model see", event, unassembled);
      else if (promptHash(copy.data) !== event.inputHash)
        note("what did the model see", event, "the prompt copy does not hash to inputHash");
      else if (!partsOf(whole).every((id) => sha256(blobs[id] ?? "") === id))
        note("what did the model see", event, "a stored prompt part does not match its hash");
      else note("what did the model see", event);
      note("which tools could it see", event, Array.isArray(p.tools) ? undefined : "no tool list");
    } else if (event.kind === "model.responded") {
      note("what did it ask for", event, Array.isArray(event.payload.content) ? undefined : "no response content");
    } else if (event.kind === "tool.called") {
      const call = byCall.get(callKeyOf(event)) ?? [];
      note(
        "what did it ask for",
        event,
        event.payload.args !== undefined || typeof event.payload.argBytes === "number" ? undefined : "no arguments",
      );
      const decided = call.find((other) => other.kind === "permission.decided" || REFUSED_BEFORE_POLICY.has(other.kind));
      note(
        "why was that allowed or refused",
        decided ?? event,
        decided && reasonOf(decided) ? undefined : "no decision with a rule or reason",
      );
      const result = call.find((other) => isTraceEventOf(other, "tool.result"));
      const observation = call.find((other) => other.kind === "observation.made");
      if (!result || !observation)
        note(
          "what came back",
          event,
          `missing ${[result ? "" : "tool.result", observation ? "" : "observation.made"].filter(Boolean).join(" and ")}`,
        );
      else if (result.payload.status === "ok" && !result.payload.rawOutputHash)
        note("what came back", result, "ok result without rawOutputHash");
      else {
        note("what came back", result);
        note("what came back", observation);
      }
    } else if (isRunEnd(event)) {
      note("why did the run stop", event, endReasonOf(event) ? undefined : "no reason");
    }
  }
  for (const answer of answers.values()) {
    if (answer.evidence.length === 0 && answer.gaps.length === 0) {
      answer.answered = false;
      answer.gaps.push("no event in the trace answers it");
    }
  }
  return [...answers.values()];
}

/** What a call's deciding event says decided it: a policy rule, or a refusal's reason. */
const reasonOf = (event: CallTraceEvent): string => {
  const { payload } = event;
  return (
    ("rule" in payload && typeof payload.rule === "string" ? payload.rule : "") ||
    ("reason" in payload && typeof payload.reason === "string" ? payload.reason : "")
  );
};

/** Why a whole copy does not reassemble to a prompt (a missing or malformed blob), or undefined when it does. */
function assemblyProblem(copy: PromptCopy, blobs: Readonly<Record<string, string>>): string | undefined {
  try {
    return assemblePrompt(copy, blobs) ? undefined : "prompt copy references blobs that are not stored";
  } catch (error) {
    if (ReinError.hasCode(error, "contract_invalid")) return error.message;
    throw error;
  }
}
