import { addUsage, errorMessage, ReinError } from "@rein/contracts";
import { type ModelResponse, tracedComplete } from "@rein/models";
import { compactContext } from "../compact-context.ts";
import { WORKER_SYSTEM } from "../worker-prompt.ts";
import { reserveCall } from "./call-reservation.ts";
import { assertLockHeld, assertNotStopped, type StepContext } from "./step-context.ts";

export type ModelTurn =
  | { kind: "responded"; response: ModelResponse }
  | { kind: "failed"; error: string }
  | { kind: "over_budget"; reason: string };

/**
 * One model call of the step: the history fitted to the context budget,
 * its tokens and cost reserved within the step's budget (or not made), traced (its prompt copy chained to the previous call's), its usage counted
 * and its reply appended to the history. A failure the step cannot recover
 * from is returned; one a later worker can (shutdown, a retryable error) is thrown.
 */
export async function takeModelTurn(step: StepContext, signal: AbortSignal): Promise<ModelTurn> {
  const { body, deps, loop, trace, tools } = step;
  assertLockHeld(step);
  assertNotStopped(step, signal, "its next model call");
  const ids = { runId: body.runId, stepId: body.stepId, parentStepId: body.parentStepId };
  const messages = await compactContext(loop.messages, {
    system: WORKER_SYSTEM,
    tools,
    contextTokens: deps.contextTokens,
    observations: loop.observations,
    trace,
    ids,
  });
  const reservation = reserveCall(step, { system: WORKER_SYSTEM, messages, tools });
  if (reservation.kind === "over_budget") return reservation;
  loop.turns += 1;
  let response: ModelResponse;
  step.inFlight = { kind: "model_call" };
  try {
    response = await tracedComplete(
      deps.provider,
      {
        role: "worker",
        system: WORKER_SYSTEM,
        messages,
        tools,
        maxTokens: reservation.maxTokens,
        metadata: { runId: body.runId, stepId: body.stepId },
      },
      { trace, ...ids, price: deps.price, prompts: step.prompts },
      // A wait for the fleet's rate budget never outlasts the step.
      { signal, onEvent: deps.onModelEvent, deadline: step.deadline },
    );
  } catch (error) {
    if (signal.aborted || (ReinError.isInstance(error) && error.retryable)) throw error;
    step.inFlight = undefined;
    return { kind: "failed", error: errorMessage(error) };
  }
  step.inFlight = undefined;
  loop.usage = addUsage(loop.usage, response.usage);
  loop.messages.push({ role: "assistant", content: response.content });
  return { kind: "responded", response };
}
