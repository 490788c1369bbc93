import type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
import { estimateRequestTokens } from "../token-estimate.ts";
import { RateGate, type RateGateSettings } from "./rate-gate.ts";

export interface RateLimitedSettings extends Omit<RateGateSettings, "scope"> {
  /** Output tokens reserved for a request that sets no `maxTokens`: the adapter's default. */
  defaultMaxTokens: number;
}

/**
 * A provider whose calls draw from the fleet's shared rate budget for its
 * account and model. A call reserves its estimated input and its `maxTokens`
 * of output before it is sent (as providers count output tokens at the
 * start) and settles with its real usage; HTTP adapters gate each attempt
 * and read each response's headers, others are gated once per call.
 */
export class RateLimitedProvider implements ModelProvider {
  readonly name: string;
  readonly kind: string;
  readonly model: string;

  constructor(
    private readonly inner: ModelProvider,
    private readonly settings: RateLimitedSettings,
  ) {
    this.name = inner.name;
    this.kind = inner.kind;
    this.model = inner.model;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    const gate = new RateGate(
      { ...this.settings, scope: { provider: this.name, model: this.model } },
      {
        demand: { inputTokens: estimateRequestTokens(request), outputTokens: request.maxTokens ?? this.settings.defaultMaxTokens },
        ...(request.metadata?.runId ? { runId: request.metadata.runId } : {}),
        ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onWaited ? { onWaited: options.onWaited } : {}),
      },
    );
    if (!this.inner.gatesAttempts) await gate.acquire();
    let response: ModelResponse;
    try {
      response = await this.inner.complete(request, { ...options, rateGate: gate });
    } catch (error) {
      // Best effort: an unsettled reservation frees itself when its lease ends, and the call's own error is the one to report.
      await gate.finish(undefined).catch(() => undefined);
      throw error;
    }
    await gate.finish(response.usage);
    return response;
  }
}
