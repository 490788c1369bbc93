import {
  addUsage,
  type ContentBlock,
  errorMessage,
  FinalAnswer,
  type HandoffPacket,
  type ModelMessage,
  type ModelProvider,
  type ModelStreamEvent,
  type Observation,
  type Price,
  ReinError,
  type StepResult,
  type Suspension,
  textOf,
  type ToolCallRecord,
  type ToolExecutor,
  toolCallsOf,
  totalTokens,
  tracedComplete,
  type TraceLog,
  type Usage,
  type Workspace,
  zeroUsage,
} from "@rein/core";
import { renderTask, WORKER_SYSTEM } from "./worker-prompt.ts";

export interface StepLoopDeps {
  provider: ModelProvider;
  executor: ToolExecutor;
  trace: TraceLog;
  workspace: Workspace;
  price?: Price;
  maxTokensPerCall?: number;
  /** Text deltas as the model streams them, for live progress. */
  onModelEvent?: (event: ModelStreamEvent) => void;
  now?: () => number;
}

/**
 * The bounded model↔tool loop of one step. Its context is built from the
 * packet alone: no goal text beyond the task, no other step's observations.
 */
export async function runStepLoop(packet: HandoffPacket, deps: StepLoopDeps, signal: AbortSignal): Promise<StepResult> {
  const { body } = packet;
  const now = deps.now ?? Date.now;
  const deadline = now() + body.budget.maxMs;
  const messages: ModelMessage[] = [{ role: "user", content: [{ type: "text", text: renderTask(body) }] }];
  const tools = deps.executor.schemasFor(body.surface);
  const observations: Observation[] = [];
  const records: ToolCallRecord[] = [];
  let usage: Usage = zeroUsage();
  let turns = 0;

  const result = (status: StepResult["status"], fields: Partial<StepResult> = {}): StepResult => ({
    schemaVersion: 1,
    runId: body.runId,
    stepId: body.stepId,
    attempt: body.attempt,
    status,
    output: null,
    summary: "",
    claims: [],
    observations,
    toolCalls: records,
    fingerprints: records.map((record) => record.fingerprint),
    usage,
    turns,
    ...fields,
  });

  while (turns < body.budget.maxTurns) {
    if (totalTokens(usage) >= body.budget.maxTokens) {
      return result("budget_exhausted", { summary: `token budget of ${body.budget.maxTokens} spent`, error: "step token budget spent" });
    }
    if (now() >= deadline) return result("budget_exhausted", { summary: `time budget of ${body.budget.maxMs} ms spent`, error: "step time budget spent" });
    turns += 1;
    let response: Awaited<ReturnType<ModelProvider["complete"]>>;
    try {
      response = await tracedComplete(
        deps.provider,
        {
          role: "worker",
          system: WORKER_SYSTEM,
          messages,
          tools,
          maxTokens: deps.maxTokensPerCall,
          metadata: { runId: body.runId, stepId: body.stepId },
        },
        { trace: deps.trace, runId: body.runId, stepId: body.stepId, parentStepId: body.parentStepId, price: deps.price },
        { signal, onEvent: deps.onModelEvent },
      );
    } catch (error) {
      if (ReinError.isInstance(error) && error.retryable) throw error;
      return result("failed", { summary: "the model call failed", error: errorMessage(error) });
    }
    usage = addUsage(usage, response.usage);
    messages.push({ role: "assistant", content: response.content });
    const calls = toolCallsOf(response.content);
    if (calls.length === 0) return finalResult(textOf(response.content), body.task.outputContract.format, result, response.stopReason);

    const toolResults: ContentBlock[] = [];
    let suspension: Suspension | undefined;
    for (const call of calls) {
      if (suspension) {
        toolResults.push({ type: "tool_result", toolCallId: call.id, content: "not run: the step suspended for approval of an earlier call", isError: true });
        continue;
      }
      const outcome = await deps.executor.execute(call, records.length, {
        runId: body.runId,
        stepId: body.stepId,
        parentStepId: body.parentStepId,
        surface: body.surface,
        policy: body.policy,
        workspace: deps.workspace,
        signal,
        budget: { maxToolCalls: body.budget.maxToolCalls, deadline },
        callsSoFar: records.length,
      });
      observations.push(outcome.observation);
      records.push(outcome.record);
      toolResults.push({ type: "tool_result", toolCallId: call.id, content: outcome.observation.content, isError: outcome.observation.status !== "ok" });
      if (outcome.suspend) suspension = { kind: "approval", approvalId: outcome.suspend.approvalId, tool: outcome.suspend.tool };
    }
    markAddressed(records);
    messages.push({ role: "user", content: toolResults });
    if (suspension) {
      return result("needs_approval", { summary: `waiting for approval of ${suspension.kind === "approval" ? suspension.tool : ""}`, suspension });
    }
    if (records.at(-1)?.status === "budget_exhausted") {
      return result("budget_exhausted", { summary: `tool-call budget of ${body.budget.maxToolCalls} spent`, error: "step tool-call budget spent" });
    }
  }
  return result("budget_exhausted", { summary: `turn budget of ${body.budget.maxTurns} spent`, error: "step turn budget spent" });
}

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

/** A failed call counts as addressed once a later call to the same tool was made. */
function markAddressed(records: ToolCallRecord[]): void {
  records.forEach((record, index) => {
    if (record.status === "ok") return;
    record.addressed = records.slice(index + 1).some((later) => later.name === record.name);
  });
}
