import { ReinError } from "@rein/contracts";
import type { ModelToolSchema } from "@rein/contracts/model";
import { createLogger, SecretBindings } from "@rein/guard";
import { type AnyTool, toolSpecOf } from "./define-tool.ts";
import { executeCall } from "./executor/execute-call.ts";
import type { ToolExecutor } from "./tool-executor.ts";
import type { ToolExecutorDeps } from "./tool-executor-deps.ts";

export type { ResolvedExecutorDeps, ToolExecutorDeps } from "./tool-executor-deps.ts";

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
 *   approvalVerifier: new ApprovalVerifier(approvalPublicKey),
 *   cache: new ToolResultCache(redis, keys),
 *   idempotency: new IdempotencyStore(redis, keys),
 *   secrets, redactor,
 * });
 * const outcome = await executor.execute(toolCall, index, stepContext);
 * if (outcome.suspend) { ... save the loop, finish the job with needs_approval ... }
 * ```
 */
export function createToolExecutor(deps: ToolExecutorDeps): ToolExecutor {
  if (deps.approvals && !deps.approvalVerifier) {
    throw new ReinError(
      "config_invalid",
      "the tool executor has an approval store but no approvalVerifier; expected the approval public key (REIN_APPROVAL_PUBLIC_KEY_FILE or <keysDir>/approval-public.pem)",
    );
  }
  const resolved = {
    ...deps,
    secrets: deps.secrets ?? SecretBindings.none(),
    logger: deps.logger ?? createLogger(),
    now: deps.now ?? Date.now,
  };
  // The same grant of the same tool yields the same schema object every step, so per-object caches downstream
  // (token estimates, prompt blobs) hit; a tool an MCP server relisted is a new object, so its new schema is offered.
  const schemaCache = new WeakMap<AnyTool, Map<string, ModelToolSchema>>();
  return {
    schemasFor(surface): ModelToolSchema[] {
      const schemas: ModelToolSchema[] = [];
      for (const grant of [...surface].sort((a, b) => a.name.localeCompare(b.name))) {
        const tool = deps.registry.get(grant.name);
        if (!tool) continue;
        let byScope = schemaCache.get(tool);
        if (!byScope) {
          byScope = new Map();
          schemaCache.set(tool, byScope);
        }
        const key = JSON.stringify(grant.scope);
        let schema = byScope.get(key);
        if (!schema) {
          const spec = toolSpecOf(tool);
          schema = { name: spec.name, description: describeWithScope(spec.description, grant.scope), inputSchema: spec.inputSchema };
          byScope.set(key, schema);
        }
        schemas.push(schema);
      }
      return schemas;
    },
    schemaIntake(surface) {
      return surface.flatMap((grant) => {
        const intake = deps.registry.get(grant.name)?.intake;
        return intake && (intake.listing > 1 || intake.flags.length > 0) ? [{ tool: grant.name, ...intake }] : [];
      });
    },
    unavailable(surface) {
      return surface
        .filter((grant) => !deps.registry.has(grant.name))
        .map((grant) => ({ tool: grant.name, reason: deps.registry.whyWithheld(grant.name) ?? NOT_REGISTERED }));
    },
    execute: (call, index, context) => executeCall(resolved, call, index, context),
    openReadCache: async (runId) => deps.cache?.openStep(runId),
  };
}

const NOT_REGISTERED =
  "no tool of this name is registered in this worker (an MCP server that is not running, a plugin not enabled, or a name no source has)";

/** The model should know its limits up front rather than learn them by refusal. */
function describeWithScope(description: string, scope: Record<string, readonly string[] | undefined>): string {
  const limits = Object.entries(scope)
    .filter((entry): entry is [string, readonly string[]] => Array.isArray(entry[1]))
    .map(([dimension, values]) => `${dimension}: ${values.length === 0 ? "(none)" : values.join(", ")}`);
  return limits.length === 0 ? description : `${description}\nAllowed in this step — ${limits.join("; ")}.`;
}
