import type { Suspension } from "@rein/contracts";
import type { ContentBlock } from "@rein/contracts/model";
import type { Observation } from "@rein/contracts/calls";
import type { ModelToolCall } from "@rein/tools";
import { answerFromResume } from "../resume-answer.ts";
import { delegateGroupOf, resumeFor } from "./delegate-group.ts";
import { isRuntimeTool, parseRuntimeCall, runtimeObservation } from "../runtime-tools.ts";
import { assertLockHeld, assertNotStopped, type StepContext } from "./step-context.ts";

/**
 * Answers the model's calls in order until one suspends the step (a runtime
 * call asking for a child or for context, or a tool call needing approval);
 * returns that suspension, with the unanswered calls kept as pending. When
 * all are answered, their results become the next user message.
 */
export async function answerCalls(
  step: StepContext,
  calls: readonly ModelToolCall[],
  answered: ContentBlock[],
  signal: AbortSignal,
): Promise<Suspension | undefined> {
  const { loop, body, deps } = step;
  for (const [position, call] of calls.entries()) {
    const index = loop.records.length;
    if (isRuntimeTool(call.name)) {
      // A resume answers the one call it names: a worker lost after saving a newer suspension leaves a checkpoint
      // whose pending call a re-dispatched job's older resume must not answer.
      const resume = resumeFor(body.resume, index);
      // Children asked for together are answered together: each pending delegate call by its own answer.
      const answersPending = position === 0 || body.resume?.kind === "delegations";
      const fromResume = answersPending && loop.pending ? answerFromResume(call, resume, deps.redactor) : undefined;
      if (fromResume) {
        answerWith(step, call, runtimeObservation(call, index, fromResume.content, fromResume.status), answered);
        continue;
      }
      const request = parseRuntimeCall(call);
      if (request.kind === "invalid") {
        answerWith(
          step,
          call,
          runtimeObservation(call, index, `invalid ${call.name} input: ${request.message}`, "invalid_input"),
          answered,
        );
        continue;
      }
      loop.pending = { answered, calls: calls.slice(position) };
      return request.kind === "delegate"
        ? delegateGroupOf(
            {
              kind: "delegate",
              reason: request.reason,
              request: request.request,
              callIndex: index,
              ...(request.join ? { join: request.join } : {}),
            },
            calls.slice(position + 1),
          )
        : { kind: "context", question: request.question, callIndex: index };
    }
    const workspace = await step.workspace;
    // A worker that lost its job starts no further call: the job's new holder will. Nor does a step whose run ended.
    assertLockHeld(step);
    assertNotStopped(step, signal, `calling ${call.name}`);
    step.inFlight = { kind: "tool_call", tool: call.name };
    const outcome = await deps.executor.execute(call, index, {
      runId: body.runId,
      stepId: body.stepId,
      attempt: body.attempt,
      parentStepId: body.parentStepId,
      surface: body.surface,
      policy: body.policy,
      workspace,
      signal,
      budget: { maxToolCalls: body.budget.maxToolCalls, deadline: step.deadline },
      // A call that stopped to ask for approval is issued again when the step resumes: it counts once, when it runs.
      callsSoFar: loop.records.filter((record) => record.status !== "pending_approval").length,
      trace: step.trace,
      cache: step.cache,
      ownerToken: deps.ownerToken,
      watch: deps.callWatch,
    });
    // Given back mid-call (shutdown): the turn is cut off here and redone by the next worker under the
    // same idempotency keys, never recorded as a failed call that a retry would then perform again.
    // Its run ended mid-call: the turn is cut off and nothing builds on the call's result.
    assertNotStopped(step, signal, `the result of ${call.name} was used`);
    step.inFlight = undefined;
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
}

function answerWith(step: StepContext, call: ModelToolCall, made: ReturnType<typeof runtimeObservation>, answered: ContentBlock[]): void {
  step.loop.observations.push(made.observation);
  step.loop.records.push(made.record);
  answered.push(resultBlock(call, made.observation));
}

/** What the model sees of a call: the observation, headed by its id so claims can cite it. */
export const resultBlock = (call: ModelToolCall, observation: Observation): ContentBlock => ({
  type: "tool_result",
  toolCallId: call.id,
  content: `[observation ${observation.id}]\n${observation.content}`,
  isError: observation.status !== "ok",
  ...(observation.images && observation.images.length > 0 ? { images: observation.images } : {}),
});
