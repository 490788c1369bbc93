import {
  addUsage,
  type CheckpointStore,
  type ContentBlock,
  errorMessage,
  FinalAnswer,
  type HandoffPacket,
  type ModelProvider,
  type ModelStreamEvent,
  type ModelToolCall,
  type Observation,
  type Price,
  type Redactor,
  ReinError,
  type StepCheckpoint,
  type StepResult,
  type Suspension,
  textOf,
  type ToolExecutor,
  toolCallsOf,
  totalTokens,
  tracedComplete,
  TraceBuffer,
  type TraceLog,
  type Workspace,
  withAddressedFailures,
  zeroUsage,
} from "@rein/core";
import { compactContext } from "./compact-context.ts";
import { answerFromResume } from "./resume-answer.ts";
import { isRuntimeTool, parseRuntimeCall, runtimeObservation, runtimeToolSchemas } from "./runtime-tools.ts";
import { renderTask, WORKER_SYSTEM } from "./worker-prompt.ts";

export interface StepLoopDeps {
  provider: ModelProvider;
  executor: ToolExecutor;
  trace: TraceLog;
  workspace: Workspace;
  /** Where the loop is saved after every turn and when it suspends. */
  checkpoints: CheckpointStore;
  /** The deepest a delegation chain may go; at the limit the worker is not offered `delegate`. */
  maxDepth: number;
  price?: Price;
  maxTokensPerCall?: number;
  /** The worker role's `contextTokens`: each call's prompt is fitted to it, oldest tool results dropped first. */
  contextTokens?: number;
  /** Removes secrets from outside text the packet hands over (evidence, lessons, a child's summary). */
  redactor?: Redactor;
  /** Text deltas as the model streams them, for live progress. */
  onModelEvent?: (event: ModelStreamEvent) => void;
  now?: () => number;
}

type Loop = Omit<StepCheckpoint, "schemaVersion" | "savedAt">;

/**
 * The bounded model↔tool loop of one step. Its context is built from the
 * packet alone: no goal text beyond the task, no other step's observations.
 * It resumes from its checkpoint when one exists for this attempt, so a
 * step that suspended, or whose worker died, continues instead of starting over.
 */
export async function runStepLoop(packet: HandoffPacket, deps: StepLoopDeps, signal: AbortSignal): Promise<StepResult> {
  const { body } = packet;
  const now = deps.now ?? Date.now;
  const deadline = now() + body.budget.maxMs;
  const tools = [...deps.executor.schemasFor(body.surface), ...runtimeToolSchemas({ canDelegate: body.depth < deps.maxDepth })];
  // A turn's trace events are written together, with its checkpoint, not one round trip each.
  const trace = new TraceBuffer(deps.trace, body.runId);
  const saved = await deps.checkpoints.load(body.runId, body.stepId, body.attempt);
  const loop: Loop = saved ?? {
    runId: body.runId,
    stepId: body.stepId,
    attempt: body.attempt,
    messages: [{ role: "user", content: [{ type: "text", text: renderTask(body, { redactor: deps.redactor }) }] }],
    observations: [],
    records: [],
    usage: zeroUsage(),
    turns: 0,
  };
  if (saved) {
    await trace.append({
      runId: body.runId,
      stepId: body.stepId,
      parentStepId: body.parentStepId,
      kind: "step.checkpoint_restored",
      payload: { turns: saved.turns, calls: saved.records.length, pending: saved.pending?.calls.length ?? 0, resume: body.resume?.kind ?? null },
    });
  }

  // Checkpoints are appended to: a save writes only what the last one did not.
  let savedCounts = saved ? { messages: saved.messages.length, observations: saved.observations.length, records: saved.records.length } : undefined;
  const save = async () => {
    await trace.flush();
    savedCounts = await deps.checkpoints.save({ ...loop, schemaVersion: 1, savedAt: new Date(now()).toISOString() }, savedCounts);
  };
  let finalText: string | undefined;
  const result = (status: StepResult["status"], fields: Partial<StepResult> = {}): StepResult => ({
    schemaVersion: 1,
    runId: body.runId,
    stepId: body.stepId,
    attempt: body.attempt,
    status,
    output: null,
    summary: "",
    claims: [],
    observations: loop.observations,
    toolCalls: withAddressedFailures(loop.records, finalText),
    fingerprints: loop.records.map((record) => record.fingerprint),
    usage: loop.usage,
    turns: loop.turns,
    ...fields,
  });

  /** Answers calls in order until one suspends the step; returns the suspension, if any. */
  const answer = async (calls: ModelToolCall[], answered: ContentBlock[]): Promise<Suspension | undefined> => {
    for (const [position, call] of calls.entries()) {
      const index = loop.records.length;
      if (isRuntimeTool(call.name)) {
        const fromResume = position === 0 && loop.pending ? answerFromResume(call, body.resume, deps.redactor) : undefined;
        if (fromResume) {
          const made = runtimeObservation(call, index, fromResume.content, fromResume.status);
          loop.observations.push(made.observation);
          loop.records.push(made.record);
          answered.push(resultBlock(call, made.observation));
          continue;
        }
        const request = parseRuntimeCall(call);
        if (request.kind === "invalid") {
          const made = runtimeObservation(call, index, `invalid ${call.name} input: ${request.message}`, "invalid_input");
          loop.observations.push(made.observation);
          loop.records.push(made.record);
          answered.push(resultBlock(call, made.observation));
          continue;
        }
        loop.pending = { answered, calls: calls.slice(position) };
        return request.kind === "delegate"
          ? { kind: "delegate", reason: request.reason, request: request.request }
          : { kind: "context", question: request.question };
      }
      const outcome = await deps.executor.execute(call, index, {
        runId: body.runId,
        stepId: body.stepId,
        attempt: body.attempt,
        parentStepId: body.parentStepId,
        surface: body.surface,
        policy: body.policy,
        workspace: deps.workspace,
        signal,
        budget: { maxToolCalls: body.budget.maxToolCalls, deadline },
        callsSoFar: loop.records.length,
        trace,
      });
      // Given back mid-call (shutdown): the turn is cut off here and redone by the next worker under the
      // same idempotency keys, never recorded as a failed call that a retry would then perform again.
      if (signal.aborted) throw new ReinError("tool_failed", `the step was given back while ${call.name} ran`, { retryable: true });
      loop.observations.push(outcome.observation);
      loop.records.push(outcome.record);
      if (outcome.suspend) {
        loop.pending = { answered, calls: calls.slice(position) };
        return { kind: "approval", approvalId: outcome.suspend.approvalId, tool: outcome.suspend.tool };
      }
      answered.push(resultBlock(call, outcome.observation));
    }
    loop.pending = undefined;
    loop.messages.push({ role: "user", content: answered });
    return undefined;
  };

  const suspended = async (suspension: Suspension): Promise<StepResult> => {
    await save();
    const status = suspension.kind === "approval" ? "needs_approval" : suspension.kind === "delegate" ? "delegated" : "needs_context";
    const what =
      suspension.kind === "approval" ? `approval of ${suspension.tool}` : suspension.kind === "delegate" ? `a child step: ${suspension.request.title}` : `context: ${suspension.question}`;
    return result(status, { summary: `waiting for ${what}`, suspension });
  };

  try {
    if (loop.pending) {
      const { answered, calls } = loop.pending;
      const suspension = await answer(calls.filter(isToolCall), [...answered]);
      if (suspension) return await suspended(suspension);
      await save();
    }

    while (loop.turns < body.budget.maxTurns) {
      if (totalTokens(loop.usage) >= body.budget.maxTokens) {
        return result("budget_exhausted", { summary: `token budget of ${body.budget.maxTokens} spent`, error: "step token budget spent" });
      }
      if (now() >= deadline) return result("budget_exhausted", { summary: `time budget of ${body.budget.maxMs} ms spent`, error: "step time budget spent" });
      loop.turns += 1;
      let response: Awaited<ReturnType<ModelProvider["complete"]>>;
      try {
        response = await tracedComplete(
          deps.provider,
          {
            role: "worker",
            system: WORKER_SYSTEM,
            messages: await compactContext(loop.messages, {
              system: WORKER_SYSTEM,
              tools,
              contextTokens: deps.contextTokens,
              observations: loop.observations,
              trace,
              ids: { runId: body.runId, stepId: body.stepId, parentStepId: body.parentStepId },
            }),
            tools,
            maxTokens: deps.maxTokensPerCall,
            metadata: { runId: body.runId, stepId: body.stepId },
          },
          { trace, runId: body.runId, stepId: body.stepId, parentStepId: body.parentStepId, price: deps.price },
          { signal, onEvent: deps.onModelEvent },
        );
      } catch (error) {
        if (signal.aborted || (ReinError.isInstance(error) && error.retryable)) throw error;
        return result("failed", { summary: "the model call failed", error: errorMessage(error) });
      }
      loop.usage = addUsage(loop.usage, response.usage);
      loop.messages.push({ role: "assistant", content: response.content });
      const calls = toolCallsOf(response.content);
      if (calls.length === 0) {
        finalText = textOf(response.content);
        return finalResult(finalText, body.task.outputContract.format, result, response.stopReason);
      }

      const suspension = await answer(calls, []);
      if (suspension) return await suspended(suspension);
      await save();
      if (loop.records.at(-1)?.status === "budget_exhausted") {
        return result("budget_exhausted", { summary: `tool-call budget of ${body.budget.maxToolCalls} spent`, error: "step tool-call budget spent" });
      }
      // A side effect that may or may not have happened: the step stops before anything builds on it or repeats it.
      const unknown = loop.records.find((record) => record.status === "outcome_unknown");
      if (unknown) return result("failed", { summary: `the outcome of ${unknown.name} is unknown after a crash`, error: `the outcome of ${unknown.name} is unknown after a crash; a person must check it` });
    }
    return result("budget_exhausted", { summary: `turn budget of ${body.budget.maxTurns} spent`, error: "step turn budget spent" });
  } finally {
    // On an error (given back on shutdown, or a transient failure) nothing is
    // saved here: the last checkpoint, taken after the last whole turn, is what
    // the next worker resumes from, and a turn cut off half-way is redone under
    // the same idempotency keys. What the turn traced is still written.
    await trace.flush();
  }
}

const isToolCall = (block: ContentBlock): block is ModelToolCall => block.type === "tool_call";

/** What the model sees of a call: the observation, headed by its id so claims can cite it. */
const resultBlock = (call: ModelToolCall, observation: Observation): ContentBlock => ({
  type: "tool_result",
  toolCallId: call.id,
  content: `[observation ${observation.id}]\n${observation.content}`,
  isError: observation.status !== "ok",
});

function finalResult(
  text: string,
  format: "text" | "answer",
  result: (status: StepResult["status"], fields?: Partial<StepResult>) => StepResult,
  stopReason: string,
): StepResult {
  if (stopReason === "max_tokens") return result("failed", { summary: text.slice(0, 500), error: "the model's final answer was cut off by max_tokens" });
  if (format === "answer") {
    const parsed = FinalAnswer.safeParse(parseJson(text));
    if (!parsed.success) return result("failed", { output: text, summary: text.slice(0, 500), error: "the final answer is not {answer, claims, gaps} JSON" });
    return result("completed", { output: parsed.data, summary: parsed.data.answer.slice(0, 500), claims: parsed.data.claims });
  }
  return result("completed", { output: text, summary: text.slice(0, 500) });
}

function parseJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  try {
    return JSON.parse((fenced?.[1] ?? text).trim());
  } catch {
    return undefined;
  }
}
