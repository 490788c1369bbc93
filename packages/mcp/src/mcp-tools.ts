import { z } from "zod";
import { ReinError, errorMessage } from "@rein/contracts";
import { destinationOf, formatHostPort, type Logger, type Redactor, type SecretBindings } from "@rein/guard";
import { type PresentedSchema, presentUntrustedSchema, presentUntrusted } from "@rein/presenter";
import { ProcessSupervisor, type SupervisorStatus, resolveSandbox, type Sandbox } from "@rein/sandbox";
import { type AnyTool, defineTool } from "@rein/tools";
import { type McpServerConfig, type McpServerConfigInput, McpServerConfig as McpServerConfigSchema } from "./mcp-config.ts";
import { mcpCallScope, withResolvedPaths } from "./mcp-argument-scopes.ts";
import { mcpCallError } from "./mcp-call-error.ts";
import { mcpEffect, mcpIdempotent } from "./mcp-effect.ts";
import {
  type ListedTool,
  type McpCall,
  type McpCallResult,
  type McpListing,
  type McpResourceResult,
  type McpToolCall,
  type McpToolResult,
  type McpTransport,
  mcpSessionOpener,
} from "./mcp-session.ts";
import { startMcpProcess } from "./mcp-stdio-process.ts";
import { mcpToolName } from "./mcp-tool-name.ts";
import { RemoteConnector } from "./mcp-transport.ts";
import { convertMcpContent, type McpToolOutput } from "./mcp-content.ts";
import { READ_RESOURCE, type ReadResource, readResourceTool } from "./mcp-read-resource.ts";

export interface McpConnection {
  server: string;
  /** The tools Rein offers from it now; replaced when the server says its list changed. */
  tools: AnyTool[];
  /** Tools it lists that Rein does not offer, and why. */
  withheld: WithheldTool[];
  /** Its process's health: state, restarts, circuit breaker, last exit. */
  status(): SupervisorStatus;
  close(): Promise<void>;
}

/** A server's tool left out of the registry, with the reason. */
export interface WithheldTool {
  tool: string;
  reason: string;
}

export interface ConnectMcpOptions {
  /** A server's `secretEnv` may name only secrets bound to `mcp:<server>`. */
  secrets?: SecretBindings;
  /**
   * The sandbox stdio servers run in (config `sandbox`, as for plugins and
   * `run_command`). @defaultValue bubblewrap, refusing to start a server where it cannot run
   */
  sandbox?: () => Promise<Sandbox>;
  /** The workspace root (config `workspaceRoot`), shown to a stdio server as its config `workspace` says. */
  workspaceRoot?: string;
  /** Host directories no server may see, even inside its mounts: the keys directory (config `keysDir`). */
  hidden?: readonly string[];
  logger?: Logger;
  /** Removes secrets from what the server says about its tools (a server that got a secret could echo it there). */
  redactor?: Redactor;
  /**
   * Called after the server said its tool list changed and it was listed
   * again: `connection.tools` is the new list, `previous` the names it had.
   */
  onToolsChanged?: (connection: McpConnection, previous: readonly string[]) => void;
  /** How often an idle server is pinged; one that does not answer is restarted (a remote one reconnected). @defaultValue 15_000 */
  pingIntervalMs?: number;
}

// A tool description is outside text the worker reads with every request; a poisoned one is bounded too.
const DESCRIPTION_BYTES = 2_000;

// Calls one server answers at once; more wait in the supervisor's bounded queue.
const CONCURRENT_CALLS = 8;
// Start, initialize and tools/list: a server fetched by npx on first use takes a while.
const START_TIMEOUT_MS = 60_000;
const KILL_GRACE_MS = 5_000;

/**
 * Starts an MCP server as a stdio child in the sandbox, supervised like a plugin (restart
 * with backoff after a crash or a failed health check, circuit breaker), and
 * turns its tools into Rein tools. They join the registry like any other and
 * pass the same pipeline: surface, validation against the server's JSON
 * Schema, scope (`services: mcp:<server>`, plus the paths and hosts its
 * mapped arguments name), policy by effect, approvals. Their output is
 * external text.
 */
export async function connectMcpServer(input: McpServerConfigInput, options: ConnectMcpOptions = {}): Promise<McpConnection> {
  const config = McpServerConfigSchema.parse(input);
  const remote = config.url ? new RemoteConnector({ ...config, url: config.url }, options.secrets, options.logger) : undefined;
  const openTransport = (transportOptions: { resume: boolean }): Promise<McpTransport> =>
    remote ? remote.open(transportOptions) : stdioTransport(config, options);
  let connection: McpConnection | undefined;
  // Which listing the tools come from: steps offered a relisted tool trace it (step.tool_schemas).
  let listings = 1;
  const apply = (listing: McpListing, why: string) => {
    if (!connection) return;
    const previous = connection.tools.map((tool) => tool.name);
    listings += 1;
    Object.assign(connection, surfaceOf(server, config, listing, { redactor: options.redactor, listing: listings }));
    options.logger?.info({ mcpServer: config.name, tools: connection.tools.length, withheld: connection.withheld }, why);
    options.onToolsChanged?.(connection, previous);
  };
  let firstListing: McpListing = { tools: [], resources: false };
  const supervisor = new ProcessSupervisor<McpCall, McpCallResult>({
    name: `MCP server ${config.name}`,
    mode: "persistent",
    concurrency: CONCURRENT_CALLS,
    startTimeoutMs: START_TIMEOUT_MS,
    pingIntervalMs: options.pingIntervalMs,
    logger: options.logger,
    open: mcpSessionOpener(config, {
      openTransport,
      logger: options.logger,
      onListed: (listing) => {
        if (connection) apply(listing, "MCP server restarted; its tools listed again");
        else firstListing = listing;
      },
      onListChanged: (relist) => {
        relist().then(
          (listed) => apply(listed, "MCP server tool list changed; listed again"),
          (error: unknown) =>
            options.logger?.warn(
              { mcpServer: config.name, error: errorMessage(error) },
              "MCP server said its tools changed, and listing them again failed",
            ),
        );
      },
    }),
  });
  // The SDK's own timeout cancels a request first; the supervisor's, a little later, is for a server that no longer answers at all.
  const server: SupervisedServer = {
    callTool: async (request, signal) => {
      try {
        return (await supervisor.call(
          { kind: "tool", ...request },
          { deadlineMs: request.maxTotalTimeoutMs + KILL_GRACE_MS, signal },
        )) as McpToolResult;
      } catch (error) {
        throw mcpCallError(error, { server: config.name, what: `tool ${request.name}` });
      }
    },
    readResource: async (uri, signal, timeoutMs) => {
      try {
        return (await supervisor.call({ kind: "resource", uri }, { deadlineMs: timeoutMs + KILL_GRACE_MS, signal })) as McpResourceResult;
      } catch (error) {
        throw mcpCallError(error, { server: config.name, what: `resource ${uri}` });
      }
    },
  };
  try {
    await supervisor.start();
  } catch (error) {
    await supervisor.close();
    // The supervisor wraps what the opener said; the opener's report names the command, exit code and stderr.
    throw ReinError.isInstance(error) && ReinError.isInstance(error.cause) ? error.cause : error;
  }
  const surface = surfaceOf(server, config, firstListing, { redactor: options.redactor, listing: 1 });
  for (const { tool, reason } of surface.withheld) options.logger?.warn({ mcpServer: config.name, tool, reason }, "MCP tool not offered");
  connection = { server: config.name, ...surface, status: () => supervisor.status(), close: () => supervisor.close() };
  return connection;
}

async function stdioTransport(config: McpServerConfig, options: ConnectMcpOptions): Promise<McpTransport> {
  const sandbox = await (options.sandbox ?? (() => resolveSandbox("auto")))();
  return startMcpProcess(config, {
    sandbox,
    workspaceRoot: options.workspaceRoot,
    hidden: options.hidden ?? [],
    secretEnv: secretEnv(config, options.secrets),
    logger: options.logger,
  });
}

/** A server that did not start, and why. */
export interface McpStartFailureReport {
  server: string;
  error: ReinError;
}

/**
 * Starts every configured server. One marked `required` that fails stops
 * all (the ones started are closed) with its reason; any other that fails is
 * logged with its command, exit code and stderr and left out, so the rest
 * of Rein runs without it and goals granting its tools can be refused.
 */
export async function startMcpServers(
  configs: readonly McpServerConfigInput[],
  options: ConnectMcpOptions = {},
): Promise<{ connections: McpConnection[]; failures: McpStartFailureReport[] }> {
  const connections: McpConnection[] = [];
  const failures: McpStartFailureReport[] = [];
  for (const input of configs) {
    const config = McpServerConfigSchema.parse(input);
    try {
      connections.push(await connectMcpServer(config, options));
    } catch (error) {
      if (config.required || !ReinError.isInstance(error)) {
        await Promise.all(connections.map((connection) => connection.close()));
        throw error;
      }
      options.logger?.error({ mcpServer: config.name, ...error.details }, error.message);
      failures.push({ server: config.name, error });
    }
  }
  return { connections, failures };
}

/** How one listing of a server's tools is presented: its redactor, and which listing it is. */
interface Presentation {
  redactor: Redactor | undefined;
  listing: number;
}

/**
 * What Rein offers of a server's list: the configured tools, less those
 * needing a capability Rein does not implement or whose schema cannot be
 * shown to a model, which are named with why rather than shown to a model,
 * approved by a person and only then refused. Every description and schema
 * passes the presenter here, at the first listing and at each relisting.
 */
function surfaceOf(
  server: SupervisedServer,
  config: McpServerConfig,
  listing: McpListing,
  presentation: Presentation,
): Pick<McpConnection, "tools" | "withheld"> {
  const { callTool, readResource } = server;
  const tools: AnyTool[] = [];
  const withheld: WithheldTool[] = [];
  for (const tool of listing.tools) {
    if (config.include && !config.include.includes(tool.name)) continue;
    const schema = presentUntrustedSchema(tool.inputSchema, { redactor: presentation.redactor });
    const reason = unsupportedNeed(tool) ?? schema.problem;
    if (reason) withheld.push({ tool: tool.name, reason });
    else tools.push(toReinTool(callTool, config, tool, { ...presentation, schema }));
  }
  if (listing.resources) {
    const override = config.tools[READ_RESOURCE];
    tools.push(
      readResourceTool(readResource, {
        server: config.name,
        serverScope: () => serverScope(config),
        timeoutMs: config.timeoutMs,
        effect: override?.effect,
        approval: override?.approval,
      }),
    );
  }
  return { tools, withheld };
}

function unsupportedNeed(tool: ListedTool): string | undefined {
  if (tool.execution?.taskSupport === "required") {
    return "it must run as a task (execution.taskSupport: required), and Rein calls tools directly, not as tasks";
  }
  return undefined;
}

type CallTool = (request: McpToolCall, signal: AbortSignal) => Promise<McpToolResult>;

/** A server's requests, each through its supervisor. */
interface SupervisedServer {
  callTool: CallTool;
  readResource: ReadResource;
}

function toReinTool(
  callTool: CallTool,
  config: McpServerConfig,
  listed: ListedTool,
  presentation: Presentation & { schema: PresentedSchema },
): AnyTool {
  const override = config.tools[listed.name] ?? {};
  const effect = mcpEffect(listed.annotations, { override: override.effect, trustAnnotations: config.trustAnnotations });
  const timeoutMs = override.timeoutMs ?? config.timeoutMs;
  const maxTotalTimeoutMs = Math.max(timeoutMs, override.maxTotalTimeoutMs ?? config.maxTotalTimeoutMs);
  const scopes = override.scopes ?? config.scopes;
  const description = presentUntrusted(listed.description ?? listed.name, {
    source: `What MCP server ${config.name} says this tool does (the descriptions in its input schema are the server's words too)`,
    redactor: presentation.redactor,
    maxBytes: DESCRIPTION_BYTES,
  });
  return defineTool({
    name: mcpToolName(config.name, listed.name),
    description: description.text,
    effect,
    // Arguments are checked against the server's own schema; the model is shown the presented one, whose literal values are the same.
    input: inputSchemaOf(listed.inputSchema),
    inputJsonSchema: presentation.schema.schema,
    intake: {
      source: `mcp:${config.name}`,
      listing: presentation.listing,
      flags: [...new Set([...description.flags, ...presentation.schema.flags])].sort(),
    },
    approval: override.approval ?? "never",
    idempotent: mcpIdempotent(effect, listed.annotations, config.trustAnnotations),
    trust: "external",
    // The call's own deadline (timeoutMs, extended by progress up to the cap) ends it; the executor's is the backstop.
    timeoutMs: maxTotalTimeoutMs + KILL_GRACE_MS,
    scope: (args) => {
      const scope = mcpCallScope(config.name, scopes, args);
      const remote = serverScope(config).hosts;
      return remote ? { ...scope, hosts: [...(scope.hosts ?? []), ...remote] } : scope;
    },
    async run(args, context): Promise<McpToolOutput> {
      const sent = await withResolvedPaths(args as Record<string, unknown>, scopes, (path) => context.workspace.resolve(path));
      const result = await callTool(
        { name: listed.name, arguments: sent, timeoutMs, maxTotalTimeoutMs, onProgress: context.progress },
        context.signal,
      );
      const output = await convertMcpContent((result.content ?? []) as Record<string, unknown>[], {
        server: config.name,
        runId: context.runId,
        tool: mcpToolName(config.name, listed.name),
        artifacts: context.artifacts,
        readResourceTool: mcpToolName(config.name, READ_RESOURCE),
      });
      if (result.isError) {
        throw new ReinError("tool_failed", `MCP tool ${listed.name} reported an error: ${output.text}`, {
          details: { failure: "different_action" },
        });
      }
      if (!output.text && result.structuredContent) output.text = JSON.stringify(result.structuredContent);
      return output;
    },
    render: (output: McpToolOutput) => output.text,
    images: (output: McpToolOutput) => output.images,
    // Annotations (audience, priority) are the server's advice about its content; the trace keeps them, the model sees the content.
    traceFields: (output: McpToolOutput) => ({
      images: output.images.length,
      annotations: output.annotations.length > 0 ? JSON.stringify(output.annotations) : null,
    }),
  });
}

/** What every call to a server touches, for the policy: the server, and a remote server's host, which must be granted. */
function serverScope(config: McpServerConfig): { services: string[]; hosts?: string[] } {
  return { services: [`mcp:${config.name}`], ...(config.url ? { hosts: [formatHostPort(destinationOf(new URL(config.url)))] } : {}) };
}

/** The server's JSON Schema as zod, so arguments are checked before they leave the process. */
function inputSchemaOf(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  try {
    return z.fromJSONSchema(schema) as z.ZodType<Record<string, unknown>>;
  } catch {
    // A schema zod cannot express still gets the one check every MCP call needs.
    return z.record(z.string(), z.unknown());
  }
}

function secretEnv(config: McpServerConfig, secrets: SecretBindings | undefined): Record<string, string> {
  const consumer = `mcp:${config.name}`;
  const bound = secrets?.boundTo(consumer) ?? {};
  const env: Record<string, string> = {};
  for (const [variable, secretName] of Object.entries(config.secretEnv)) {
    const value = bound[secretName];
    if (!value) {
      throw new ReinError(
        "config_invalid",
        `MCP server ${config.name} needs secret ${secretName} for ${variable}, and no such secret with a value is bound to it; expected config secrets to have { "env": "${secretName}", "tools": ["${consumer}"] } and ${secretName} set in the environment`,
      );
    }
    env[variable] = value;
  }
  return env;
}
