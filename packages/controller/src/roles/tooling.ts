import { type McpServerState, publishMcpStatus } from "../status-board/mcp-status-board.ts";
import { publishPluginStatus } from "../status-board/plugin-status-board.ts";
import { errorMessage, ReinError } from "@rein/contracts";
import type { ApprovalVerifier } from "@rein/signing";
import { type ConnectMcpOptions, type McpConnection, mcpToolName, startMcpServers } from "@rein/mcp";
import { loadPlugins, type PluginSet, pluginToolNames } from "@rein/plugins";
import { ApprovalStore, IdempotencyStore, type ReinConfig, type ReinRuntime, ToolResultCache } from "@rein/runtime";
import { type SupervisorStatus, resolveSandbox } from "@rein/sandbox";
import { type AnyTool, builtinTools, createToolExecutor, ToolRegistry, type ToolExecutor } from "@rein/tools";

/**
 * Every tool this deployment knows: the built-ins, then what the embedding
 * program adds; an added tool with a built-in's name replaces it (replay and
 * eval swap tools this way).
 */
export function buildRegistry(config: ReinConfig, extra: readonly AnyTool[]): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  const builtins = builtinTools({
    commands: config.tools.commands,
    hosts: config.tools.hosts,
    sandbox: config.sandbox,
    sandboxLimits: config.sandboxLimits,
  });
  for (const tool of builtins) byName.set(tool.name, tool);
  for (const tool of extra) byName.set(tool.name, tool);
  return new ToolRegistry(byName.values());
}

/**
 * The tool names a goal may be granted without starting anything: the
 * registry's, config `tools.extra` (the tools step workers load from their
 * own modules), the enabled plugins' (from their manifests), and for each configured MCP server its included tools, or a
 * `<server>__*` pattern when it exposes all of them (their names are only
 * known once it runs; a name it does not have is refused at runtime).
 */
export function knownToolNames(config: ReinConfig, extra: readonly AnyTool[]): string[] {
  const names = [...buildRegistry(config, extra).names(), ...config.tools.extra, ...pluginToolNames(config.plugins)];
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
  /** The enabled plugins of config `plugins`, when there are any. */
  plugins?: PluginSet;
  /** MCP servers that failed to start and were not `required`: goals granting their tools are refused. */
  unavailableMcp: Array<{ server: string; reason: string }>;
  /** Disconnects the MCP servers and stops every plugin process. */
  close(): Promise<void>;
}

/**
 * The tool executor a step worker runs calls through, with every guardrail
 * stage switched on. The MCP servers in config are started here and their
 * tools join the registry (one that fails to start stops this only when it is
 * `required`; otherwise it is reported and published as failed), as do the enabled plugins' (their processes start
 * on first use, in the calling run's sandbox); tools read secrets only through the runtime's
 * reader, and the runtime's redactor keeps secret values and PII out of
 * observations, artifacts and the trace. The approval gate checks decisions
 * with `approvalVerifier` (the approval public key); the step worker never
 * holds the key that makes them.
 */
export async function buildTooling(runtime: ReinRuntime, extra: readonly AnyTool[], approvalVerifier: ApprovalVerifier): Promise<Tooling> {
  const { config, redis, keys } = runtime;
  const plugins = config.plugins.some((entry) => entry.enabled) ? await loadPluginSet(runtime) : undefined;
  let registry: ToolRegistry | undefined;
  // A server's new tool list reaches the registry, and so the steps that start after it.
  const onToolsChanged = (connection: McpConnection, previous: readonly string[]) => {
    try {
      registry?.replace(previous, connection.tools);
      registry?.withhold(`mcp:${connection.server}`, withheldOf(connection));
    } catch (error) {
      runtime.logger.error({ mcpServer: connection.server, error: errorMessage(error) }, "MCP server's new tool list not taken");
    }
  };
  const { connections: mcp, failures } = await startMcpServers(config.mcp, {
    ...mcpSandboxing(config),
    secrets: runtime.secrets,
    logger: runtime.logger,
    redactor: runtime.redactor,
    onToolsChanged,
  }).catch(async (error: unknown) => {
    await plugins?.close();
    throw error;
  });
  const unavailableMcp = failures.map(({ server, error }) => ({ server, reason: error.message }));
  const mcpStates = (): McpServerState[] => [
    ...mcp.map((connection) => ({
      server: connection.server,
      state: "running" as const,
      tools: connection.tools.map((tool) => tool.name),
      withheld: connection.withheld,
      health: healthOf(connection.status()),
    })),
    ...unavailableMcp.map(({ server, reason }) => ({ server, state: "failed" as const, tools: [], withheld: [], error: reason })),
  ];
  const unpublish = plugins ? publishPluginStatus(runtime, plugins) : undefined;
  const unpublishMcp = config.mcp.length > 0 ? publishMcpStatus(runtime, mcpStates) : undefined;
  const close = async () => {
    await Promise.all([unpublish?.(), unpublishMcp?.()]);
    await Promise.all([...mcp.map((connection) => connection.close()), plugins?.close()]);
  };
  try {
    // Plugin tools first: a tool the embedding program passes with the same name (a replay's stub) replaces it.
    registry = buildRegistry(config, [...(plugins?.tools ?? []), ...extra, ...mcp.flatMap((connection) => connection.tools)]);
    for (const connection of mcp) registry.withhold(`mcp:${connection.server}`, withheldOf(connection));
  } catch (error) {
    await close();
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
    cache: new ToolResultCache(redis, keys, {
      onWriteError: (error) => runtime.logger.warn({ err: error }, "a tool result cache write failed; later reads run the tool again"),
    }),
    idempotency: new IdempotencyStore(redis, keys),
    logger: runtime.logger,
    secrets: runtime.secrets,
    redactor: runtime.redactor,
  });
  return { registry, executor, approvals, plugins, unavailableMcp, close };
}

/** Stdio MCP servers run in the run sandbox like plugins, see the workspace root as their config says, and never the keys. */
export function mcpSandboxing(config: ReinConfig): Pick<ConnectMcpOptions, "sandbox" | "workspaceRoot" | "hidden"> {
  return {
    sandbox: () => resolveSandbox(config.sandbox, { limits: config.sandboxLimits }),
    workspaceRoot: config.workspaceRoot,
    hidden: [config.keysDir],
  };
}

/** A server's withheld tools under the names a grant would give them. */
function withheldOf(connection: McpConnection): Array<{ name: string; reason: string }> {
  return connection.withheld.map(({ tool, reason }) => ({ name: mcpToolName(connection.server, tool), reason }));
}

/** Config `plugins`, each run's processes inside the run sandbox; a plugin may not take a built-in's name. */
async function loadPluginSet(runtime: ReinRuntime): Promise<PluginSet> {
  const { config } = runtime;
  const plugins = await loadPlugins(config.plugins, {
    sandbox: () => resolveSandbox(config.sandbox, { limits: config.sandboxLimits }),
    hidden: [config.keysDir],
    secrets: runtime.secrets,
    logger: runtime.logger,
    trace: runtime.trace,
    redactor: runtime.redactor,
  });
  const builtins = new Set(buildRegistry(config, []).names());
  const taken = plugins.tools.filter((tool) => builtins.has(tool.name)).map((tool) => tool.name);
  if (taken.length > 0) {
    await plugins.close();
    throw new ReinError(
      "config_invalid",
      `plugin tools ${taken.join(", ")} have the names of built-in tools; expected plugin tools with names of their own`,
    );
  }
  return plugins;
}

function healthOf(status: SupervisorStatus): McpServerState["health"] {
  const { state, restarts, breaker, inFlight, lastExit } = status;
  return {
    state,
    restarts,
    breaker,
    inFlight,
    ...(lastExit ? { lastExit: { exitCode: lastExit.exitCode, signal: lastExit.signal, killedFor: lastExit.killedFor } } : {}),
  };
}
