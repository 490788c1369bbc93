import type { PolicyRule } from "@rein/contracts";
import type { Logger, Redactor, SecretBindings } from "@rein/guard";
import type { SizeLimits } from "@rein/presenter";
import type { ApprovalVerifier } from "@rein/signing";
import type { ApprovalDesk } from "./ports/approval-desk.ts";
import type { IdempotencyLog } from "./ports/idempotency-log.ts";
import type { ArtifactWriter } from "./define-tool.ts";
import type { TraceSink } from "./executor/call-trace.ts";
import type { RetryOptions } from "./executor/run-tool.ts";
import type { RepeatSafeRule } from "./executor/repeat-safe.ts";
import type { ToolRegistry } from "./tool-registry.ts";
import type { ReadCache } from "./ports/read-cache.ts";

/**
 * What the executor is built from. Only `registry`, `trace`, `artifacts`
 * and `config` are required; each optional store switches on one stage.
 */
export interface ToolExecutorDeps {
  /** Every tool installed in the process; a call still needs its name on the step's surface. */
  registry: ToolRegistry;
  /** A TraceLog (or anything with its `append`). */
  trace: TraceSink;
  /** Where full results of truncated observations go (an ArtifactStore). */
  artifacts: ArtifactWriter;
  /**
   * The deployment's policy rules and observation limits, and the calls it
   * declares safe to repeat after a crash (`tools.repeatSafe`); a `ReinConfig` fits.
   */
  config: { policy: readonly PolicyRule[]; observations: SizeLimits; tools?: { repeatSafe?: readonly RepeatSafeRule[] } };
  /** Without it, a call the policy says to ask about is denied: there is no one to ask. */
  approvals?: ApprovalDesk;
  /**
   * Checks each decision's signature with the approval public key; required
   * with `approvals`. A record no decider signed is refused and traced as
   * `approval.forged`.
   */
  approvalVerifier?: ApprovalVerifier;
  /** Enables the per-run cache of read-only idempotent results. */
  cache?: ReadCache;
  /** Enables intent and outcome records of side-effecting calls: replayed after a crash, never silently repeated (docs/effects.md). */
  idempotency?: IdempotencyLog;
  /** The only way tools get credentials; each call sees the secrets bound to its tool. @defaultValue none */
  secrets?: SecretBindings;
  /** Removes secrets and PII from observations, artifacts and trace payloads. */
  redactor?: Redactor;
  logger?: Logger;
  /** Transient-failure retries of idempotent tools. @defaultValue 3 attempts, 100 ms doubling */
  retry?: RetryOptions;
  /** @defaultValue Date.now */
  now?: () => number;
}

/** The deps with their defaults filled in, as the pipeline stages use them. */
export type ResolvedExecutorDeps = ToolExecutorDeps & {
  secrets: SecretBindings;
  logger: Logger;
  now: () => number;
};
