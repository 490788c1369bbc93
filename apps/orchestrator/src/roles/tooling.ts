import {
  type AnyTool,
  ApprovalStore,
  builtinTools,
  createToolExecutor,
  IdempotencyStore,
  type ReinConfig,
  type ReinRuntime,
  ToolRegistry,
  ToolResultCache,
  type ToolExecutor,
} from "@rein/core";

/** Every tool this deployment knows: the built-ins plus what the embedding program adds. */
export function buildRegistry(config: ReinConfig, extra: readonly AnyTool[]): ToolRegistry {
  return new ToolRegistry([...builtinTools({ commands: config.tools.commands, hosts: config.tools.hosts }), ...extra]);
}

export interface Tooling {
  registry: ToolRegistry;
  executor: ToolExecutor;
  approvals: ApprovalStore;
  close(): Promise<void>;
}

/** The tool executor a step worker runs calls through, with every guardrail stage switched on. */
export function buildTooling(runtime: ReinRuntime, extra: readonly AnyTool[]): Tooling {
  const { config, redis, keys } = runtime;
  const registry = buildRegistry(config, extra);
  const approvals = new ApprovalStore(redis, keys, { ttlSeconds: config.approvals.ttlSeconds });
  const executor = createToolExecutor({
    registry,
    trace: runtime.trace,
    artifacts: runtime.artifacts,
    config,
    approvals,
    cache: new ToolResultCache(redis, keys),
    idempotency: new IdempotencyStore(redis, keys),
    logger: runtime.logger,
  });
  return { registry, executor, approvals, close: async () => {} };
}
