import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";
import { ReinError } from "../errors.ts";
import { destinationOf, formatHostPort } from "../policy/host-port.ts";
import type { Logger } from "../logger.ts";
import { presentUntrusted } from "../sanitize/present-untrusted.ts";
import type { Redactor } from "../sanitize/redactor.ts";
import type { SecretBindings } from "../secrets/secret-bindings.ts";
import { type AnyTool, defineTool } from "../tools/define-tool.ts";
import { type McpServerConfig, type McpServerConfigInput, McpServerConfig as McpServerConfigSchema } from "./mcp-config.ts";
import { mcpCallScope, withResolvedPaths } from "./mcp-argument-scopes.ts";
import { type McpAnnotations, mcpEffect, mcpIdempotent } from "./mcp-effect.ts";
import { watchMcpProcess } from "./mcp-stdio-process.ts";
import { mcpStartFailure } from "./mcp-start-failure.ts";
import { mcpToolName } from "./mcp-tool-name.ts";
import { remoteTransport } from "./mcp-transport.ts";
import { convertMcpContent, type McpToolOutput } from "./mcp-content.ts";
import { READ_RESOURCE, readResourceTool } from "./mcp-read-resource.ts";

export interface McpConnection {
  server: string;
  /** The tools Rein offers from it now; replaced when the server says its list changed. */
  tools: AnyTool[];
  /** Tools it lists that Rein does not offer, and why. */
  withheld: WithheldTool[];
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
  logger?: Logger;
  /** Removes secrets from what the server says about its tools (a server that got a secret could echo it there). */
  redactor?: Redactor;
  /**
   * Called after the server said its tool list changed and it was listed
   * again: `connection.tools` is the new list, `previous` the names it had.
   */
  onToolsChanged?: (connection: McpConnection, previous: readonly string[]) => void;
}

// A tool description is outside text the worker reads with every request; a poisoned one is bounded too.
const DESCRIPTION_BYTES = 2_000;
// How long a server that failed to start is given to exit, so its exit code can be reported.
const EXIT_WAIT_MS = 2_000;

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpAnnotations;
  execution?: { taskSupport?: string };
}

// A burst of list changes (a server registering several tools) is listed again once.
const LIST_CHANGED_DEBOUNCE_MS = 200;

/**
 * Starts an MCP server as a stdio child and turns its tools into Rein tools.
 * They join the registry like any other and pass the same pipeline: surface,
 * validation against the server's JSON Schema, scope (`services: mcp:<server>`,
 * plus the paths and hosts its mapped arguments name),
 * policy by effect, approvals. Their output is external text.
 */
export async function connectMcpServer(input: McpServerConfigInput, options: ConnectMcpOptions = {}): Promise<McpConnection> {
  const config = McpServerConfigSchema.parse(input);
  // Loaded here, not at the top: most processes never start an MCP server and should not pay for the SDK.
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { transport, witness } = config.url
    ? { transport: await remoteTransport({ ...config, url: config.url }, options.secrets), witness: undefined }
    : await stdioTransport(config, options);
  let connection: McpConnection | undefined;
  const relist = async () => {
    if (!connection) return;
    const previous = connection.tools.map((tool) => tool.name);
    Object.assign(connection, surfaceOf(client, config, await listAll(client), options.redactor));
    options.logger?.info({ mcpServer: config.name, tools: connection.tools.length, withheld: connection.withheld }, "MCP server tool list changed; listed again");
    options.onToolsChanged?.(connection, previous);
  };
  const client = new Client(
    { name: "rein", version: "0.1.0" },
    {
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: LIST_CHANGED_DEBOUNCE_MS,
          onChanged: () => {
            relist().catch((error: unknown) =>
              options.logger?.warn({ mcpServer: config.name, error: (error as Error).message }, "MCP server said its tools changed, and listing them again failed"),
            );
          },
        },
      },
    },
  );
  try {
    await client.connect(transport);
    const surface = surfaceOf(client, config, await listAll(client), options.redactor);
    for (const { tool, reason } of surface.withheld) options.logger?.warn({ mcpServer: config.name, tool, reason }, "MCP tool not offered");
    connection = { server: config.name, ...surface, close: () => client.close() };
    return connection;
  } catch (error) {
    // Its exit code and stderr say why; closing first would only show the signal Rein sent.
    const exit = await witness?.exit(EXIT_WAIT_MS);
    await client.close().catch(() => {});
    throw mcpStartFailure(config, error, exit, witness?.stderrTail() ?? "");
  }
}

async function stdioTransport(config: McpServerConfig, options: ConnectMcpOptions) {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({
    command: config.command ?? "",
    args: config.args,
    cwd: config.cwd,
    env: { ...config.env, ...secretEnv(config, options.secrets) },
    stderr: "pipe",
  });
  return { transport, witness: watchMcpProcess(transport, options.logger, config.name) };
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

async function listAll(client: Client): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...(page.tools as ListedTool[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * What Rein offers of a server's list: the configured tools, less those
 * needing a capability Rein does not implement, which are named with why
 * rather than shown to a model, approved by a person and only then refused.
 */
function surfaceOf(client: Client, config: McpServerConfig, listed: readonly ListedTool[], redactor: Redactor | undefined): Pick<McpConnection, "tools" | "withheld"> {
  const tools: AnyTool[] = [];
  const withheld: WithheldTool[] = [];
  for (const tool of listed) {
    if (config.include && !config.include.includes(tool.name)) continue;
    const reason = unsupportedNeed(tool);
    if (reason) withheld.push({ tool: tool.name, reason });
    else tools.push(toReinTool(client, config, tool, redactor));
  }
  if (client.getServerCapabilities()?.resources) tools.push(readResourceTool(client, config.name, () => serverScope(config), config.timeoutMs));
  return { tools, withheld };
}

function unsupportedNeed(tool: ListedTool): string | undefined {
  if (tool.execution?.taskSupport === "required") {
    return "it must run as a task (execution.taskSupport: required), and Rein calls tools directly, not as tasks";
  }
  return undefined;
}

function toReinTool(client: Client, config: McpServerConfig, listed: ListedTool, redactor: Redactor | undefined): AnyTool {
  const override = config.tools[listed.name] ?? {};
  const effect = mcpEffect(listed.annotations, { override: override.effect, trustAnnotations: config.trustAnnotations });
  const timeoutMs = override.timeoutMs ?? config.timeoutMs;
  const scopes = override.scopes ?? config.scopes;
  return defineTool({
    name: mcpToolName(config.name, listed.name),
    description: presentUntrusted(listed.description ?? listed.name, { source: `What MCP server ${config.name} says this tool does`, redactor, maxBytes: DESCRIPTION_BYTES })
      .text,
    effect,
    input: inputSchemaOf(listed.inputSchema),
    inputJsonSchema: listed.inputSchema,
    approval: override.approval ?? "never",
    idempotent: mcpIdempotent(effect, listed.annotations, config.trustAnnotations),
    trust: "external",
    timeoutMs,
    scope: (args) => {
      const scope = mcpCallScope(config.name, scopes, args);
      const remote = serverScope(config).hosts;
      return remote ? { ...scope, hosts: [...(scope.hosts ?? []), ...remote] } : scope;
    },
    async run(args, context): Promise<McpToolOutput> {
      const sent = await withResolvedPaths(args as Record<string, unknown>, scopes, (path) => context.workspace.resolve(path));
      const result = await client.callTool({ name: listed.name, arguments: sent }, undefined, {
        signal: context.signal,
        timeout: timeoutMs,
      });
      const output = await convertMcpContent((result.content ?? []) as Record<string, unknown>[], {
        server: config.name,
        runId: context.runId,
        tool: mcpToolName(config.name, listed.name),
        artifacts: context.artifacts,
        readResourceTool: mcpToolName(config.name, READ_RESOURCE),
      });
      if (result.isError) {
        throw new ReinError("tool_failed", `MCP tool ${listed.name} reported an error: ${output.text}`, { details: { failure: "different_action" } });
      }
      if (!output.text && result.structuredContent) output.text = JSON.stringify(result.structuredContent);
      return output;
    },
    render: (output: McpToolOutput) => output.text,
    images: (output: McpToolOutput) => output.images,
    // Annotations (audience, priority) are the server's advice about its content; the trace keeps them, the model sees the content.
    traceFields: (output: McpToolOutput) => ({ images: output.images.length, annotations: output.annotations.length > 0 ? JSON.stringify(output.annotations) : null }),
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
