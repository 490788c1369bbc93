import {
  type AnyTool,
  ApprovalStore,
  type ApprovalVerifier,
  builtinTools,
  connectMcpServers,
  mcpToolName,
  createToolExecutor,
  IdempotencyStore,
  type ReinConfig,
  type ReinRuntime,
  ToolRegistry,
  ToolResultCache,
  type ToolExecutor,
} from "@rein/core";

/**
 * Every tool this deployment knows: the built-ins, then what the embedding
 * program adds; an added tool with a built-in's name replaces it (replay and
 * eval swap tools this way).
 */
export function buildRegistry(config: ReinConfig, extra: readonly AnyTool[]): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  const builtins = builtinTools({ commands: config.tools.commands, hosts: config.tools.hosts, sandbox: config.sandbox, sandboxLimits: config.sandboxLimits });
  for (const tool of builtins) byName.set(tool.name, tool);
  for (const tool of extra) byName.set(tool.name, tool);
  return new ToolRegistry(byName.values());
}

/**
 * The tool names a goal may be granted without starting anything: the
 * registry's, and for each configured MCP server its included tools, or a
 * `<server>__*` pattern when it exposes all of them (their names are only
 * known once it runs; a name it does not have is refused at runtime).
 */
export function knownToolNames(config: ReinConfig, extra: readonly AnyTool[]): string[] {
  const names = buildRegistry(config, extra).names();
  for (const server of config.mcp) {
    if (server.include) names.push(...server.include.map((tool) => mcpToolName(server.name, tool)));
    else names.push(`${server.name}__*`);
  }
  return names;
}

export interface Tooling {
  registry: ToolRegistry;
  executor: ToolExecutor;
  approvals: ApprovalStore;
  /** Disconnects the MCP servers. */
  close(): Promise<void>;
}

/**
 * The tool executor a step worker runs calls through, with every guardrail
 * stage switched on. The MCP servers in config are started here and their
 * tools join the registry; tools read secrets only through the runtime's
 * reader, and the runtime's redactor keeps secret values and PII out of
 * observations, artifacts and the trace. The approval gate checks decisions
 * with `approvalVerifier` (the approval public key); the step worker never
 * holds the key that makes them.
 */
export async function buildTooling(runtime: ReinRuntime, extra: readonly AnyTool[], approvalVerifier: ApprovalVerifier): Promise<Tooling> {
  const { config, redis, keys } = runtime;
  const mcp = await connectMcpServers(config.mcp, { secrets: runtime.secrets, logger: runtime.logger, redactor: runtime.redactor });
  const closeMcp = async () => {
    await Promise.all(mcp.map((connection) => connection.close()));
  };
  let registry: ToolRegistry;
  try {
    registry = buildRegistry(config, [...extra, ...mcp.flatMap((connection) => connection.tools)]);
  } catch (error) {
    await closeMcp();
    throw error;
  }
  const approvals = new ApprovalStore(redis, keys, { ttlSeconds: config.approvals.ttlSeconds });
  const executor = createToolExecutor({
    registry,
    trace: runtime.trace,
    artifacts: runtime.artifacts,
    config,
    approvals,
    approvalVerifier,
    cache: new ToolResultCache(redis, keys),
    idempotency: new IdempotencyStore(redis, keys),
    logger: runtime.logger,
    secrets: runtime.secrets,
    redactor: runtime.redactor,
  });
  return { registry, executor, approvals, close: closeMcp };
}
