import type { PolicyRule } from "../contracts/index.ts";
import type { ApprovalStore } from "../approvals/approval-store.ts";
import type { Logger } from "../logger.ts";
import { rootLogger } from "../logger.ts";
import type { ModelToolSchema } from "../models/model-provider.ts";
import type { Redactor } from "../sanitize/redactor.ts";
import { noSecrets } from "../sanitize/secret-reader.ts";
import type { IdempotencyStore } from "../stores/idempotency-store.ts";
import type { ArtifactWriter, SecretReader } from "./define-tool.ts";
import { toolSpecOf } from "./define-tool.ts";
import type { TraceSink } from "./executor/call-trace.ts";
import { executeCall } from "./executor/execute-call.ts";
import type { RetryOptions } from "./executor/run-tool.ts";
import type { SizeLimits } from "./executor/size-limit.ts";
import type { ToolExecutor } from "./tool-executor.ts";
import type { ToolRegistry } from "./tool-registry.ts";
import type { ToolResultCache } from "./tool-result-cache.ts";

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
  /** The deployment's policy rules and observation limits; a `ReinConfig` fits. */
  config: { policy: readonly PolicyRule[]; observations: SizeLimits };
  /** Without it, a call the policy says to ask about is denied: there is no one to ask. */
  approvals?: ApprovalStore;
  /** Enables the per-run cache of read-only idempotent results. */
  cache?: ToolResultCache;
  /** Enables recording and replay of non-idempotent results. */
  idempotency?: IdempotencyStore;
  /** The only way tools get credentials. @defaultValue none */
  secrets?: SecretReader;
  /** Removes secrets and PII from observations, artifacts and trace payloads. */
  redactor?: Redactor;
  logger?: Logger;
  /** Transient-failure retries of idempotent tools. @defaultValue 3 attempts, 100 ms doubling */
  retry?: RetryOptions;
  /** @defaultValue Date.now */
  now?: () => number;
}

/**
 * Builds the ToolExecutor the worker loop calls for every model tool call.
 *
 * @example
 * ```ts
 * const executor = createToolExecutor({
 *   registry: new ToolRegistry(builtinTools({ commands: config.tools.commands, hosts: config.tools.hosts })),
 *   trace: new TraceLog(redis, keys, { redact: redactor.redactJson }),
 *   artifacts: new ArtifactStore(redis, keys),
 *   config, // ReinConfig: uses .policy and .observations
 *   approvals: new ApprovalStore(redis, keys, { ttlSeconds: config.approvals.ttlSeconds }),
 *   cache: new ToolResultCache(redis, keys),
 *   idempotency: new IdempotencyStore(redis, keys),
 *   secrets, redactor,
 * });
 * const outcome = await executor.execute(toolCall, index, stepContext);
 * if (outcome.suspend) { ... save the loop, finish the job with needs_approval ... }
 * ```
 */
export function createToolExecutor(deps: ToolExecutorDeps): ToolExecutor {
  const resolved = {
    ...deps,
    secrets: deps.secrets ?? noSecrets,
    logger: deps.logger ?? rootLogger,
    now: deps.now ?? Date.now,
  };
  return {
    schemasFor(surface): ModelToolSchema[] {
      const schemas: ModelToolSchema[] = [];
      for (const grant of [...surface].sort((a, b) => a.name.localeCompare(b.name))) {
        const tool = deps.registry.get(grant.name);
        if (!tool) continue;
        const spec = toolSpecOf(tool);
        schemas.push({ name: spec.name, description: describeWithScope(spec.description, grant.scope), inputSchema: spec.inputSchema });
      }
      return schemas;
    },
    execute: (call, index, context) => executeCall(resolved, call, index, context),
  };
}

export type ResolvedExecutorDeps = ToolExecutorDeps & {
  secrets: SecretReader;
  logger: Logger;
  now: () => number;
};

/** The model should know its limits up front rather than learn them by refusal. */
function describeWithScope(description: string, scope: Record<string, readonly string[] | undefined>): string {
  const limits = Object.entries(scope)
    .filter((entry): entry is [string, readonly string[]] => Array.isArray(entry[1]))
    .map(([dimension, values]) => `${dimension}: ${values.length === 0 ? "(none)" : values.join(", ")}`);
  return limits.length === 0 ? description : `${description}\nAllowed in this step — ${limits.join("; ")}.`;
}
