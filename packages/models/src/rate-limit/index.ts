// @rein/models/rate-limit: the fleet's shared rate budget per provider account and model. The port
// (RateLimiter; its Redis implementation is in @rein/runtime), the call's gate around each attempt,
// the provider wrapper createProvider puts around a provider whose config sets `limits`, and the
// reading of Anthropic's and OpenAI's rate-limit headers.
export type { AttemptGate, ModelWait } from "../model-provider.ts";
export type {
  ObservedDimension,
  ObservedLimits,
  RateDemand,
  RateDimension,
  RateLimiter,
  RateScope,
  RateSnapshot,
  RateWaitReason,
  ReserveOutcome,
  ReserveRequest,
} from "./rate-limiter.ts";
export { budgetFor, RateBudget, RateLimits } from "./rate-limits-config.ts";
export { observedLimitsOf } from "./rate-limit-headers.ts";
export { RateGate, type GatedCall, type RateGateSettings } from "./rate-gate.ts";
export { RateLimitedProvider, type RateLimitedSettings } from "./rate-limited-provider.ts";
