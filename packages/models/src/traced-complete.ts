import { hashOf, errorMessage } from "@rein/contracts";
import type { Price } from "./model-config.ts";
import { type PromptChain, promptHash, storePromptCopy, type TraceWriter } from "@rein/trace";
import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse, ModelWait } from "./model-provider.ts";
import { costOf } from "./pricing.ts";
import { toolBoundary } from "./tool-boundary/tool-boundary.ts";

export interface ModelCallTrace {
  trace: TraceWriter;
  runId: string;
  stepId?: string | null;
  parentStepId?: string | null;
  /** Price of this provider/model, to fill `usage.costUsd` when the adapter did not. */
  price?: Price;
  /** The conversation this call continues: its prompt copy then names only the messages new since the last call. */
  prompts?: PromptChain;
}

/**
 * Calls a model and records the call in the run's trace: who served it,
 * which tools it could see, input and output hashes, usage, cost, retries.
 * Tools cross the one boundary here (tool-boundary/): the provider gets
 * provider-safe names and draft 2020-12 schemas, and the response comes
 * back with each tool call under its original name.
 */
export async function tracedComplete(
  provider: ModelProvider,
  request: ModelRequest,
  traceOptions: ModelCallTrace,
  options: CompleteOptions = {},
): Promise<ModelResponse> {
  // A call stopped before it started (lost lock, shutdown) is not made, so the trace never shows a call that was not.
  options.signal?.throwIfAborted();
  const { trace, runId } = traceOptions;
  const ids = { runId, stepId: traceOptions.stepId ?? null, parentStepId: traceOptions.parentStepId ?? null };
  // Every provider, scripted and replay included, sees provider-safe names and 2020-12 schemas; Rein sees the original names.
  const boundary = await toolBoundary(request);
  // The stored copy of the prompt, so "what did the model see" has an answer beyond its hash.
  const prompt = await storePromptCopy(trace, runId, request, traceOptions.prompts);
  const inputHash = promptHash(prompt);
  await trace.append({
    ...ids,
    kind: "model.called",
    inputHash,
    payload: {
      role: request.role,
      provider: provider.name,
      kind: provider.kind,
      model: provider.model,
      tools: (request.tools ?? []).map((tool) => tool.name),
      messages: request.messages.length,
      structured: request.output?.name ?? null,
      prompt,
      ...(Object.keys(boundary.toolNames).length > 0 ? { toolNames: boundary.toolNames } : {}),
      ...(boundary.schemasReplaced.length > 0 ? { toolSchemasReplaced: boundary.schemasReplaced } : {}),
    },
  });
  const started = performance.now();
  options.onEvent?.({ type: "call_started" });
  // A wait for the fleet's rate budget is part of the call's story: how long, and what was short.
  const onWaited = async (wait: ModelWait) => {
    await trace.append({ ...ids, kind: "model.waited", inputHash, durationMs: wait.waitedMs, payload: { role: request.role, ...wait } });
    await options.onWaited?.(wait);
  };
  try {
    const response = boundary.response(await provider.complete(boundary.request, boundary.options({ ...options, onWaited })));
    const usage =
      response.usage.costUsd === 0 && traceOptions.price
        ? { ...response.usage, costUsd: costOf(response.usage, traceOptions.price) }
        : { ...response.usage };
    // Said in the trace, so the CLI, the dashboard and `rein trace` can show "price unknown" rather than a cost of $0.
    const priceUnknown = response.priceKnown === false && !traceOptions.price;
    await trace.append({
      ...ids,
      kind: "model.responded",
      inputHash,
      outputHash: hashOf(response.content),
      durationMs: Math.round(performance.now() - started),
      usage,
      payload: {
        role: request.role,
        provider: response.provider,
        model: response.model,
        stopReason: response.stopReason,
        retries: response.retries,
        requestId: response.requestId ?? null,
        ...(priceUnknown ? { price: "unknown" } : {}),
        content: response.content,
      },
    });
    return { ...response, usage };
  } catch (error) {
    await trace.append({
      ...ids,
      kind: "model.failed",
      inputHash,
      durationMs: Math.round(performance.now() - started),
      payload: {
        role: request.role,
        provider: provider.name,
        model: provider.model,
        error: errorMessage(error),
        // Stopped by its caller (a cancel, a shutdown handing the job back): not the provider's failure.
        ...(options.signal?.aborted ? { aborted: true } : {}),
      },
    });
    throw error;
  } finally {
    options.onEvent?.({ type: "call_finished", durationMs: Math.round(performance.now() - started) });
  }
}
