import { JsonObject, type Scope, ReinError } from "@rein/contracts";
import type { FailureClass } from "@rein/contracts/calls";
import type { Redactor } from "@rein/guard";
import { presentUntrustedSchema, presentUntrusted } from "@rein/presenter";
import { type SupervisorFailure, supervisorFailureOf } from "@rein/sandbox";
import { type AnyTool, defineTool } from "@rein/tools";
import { zodOfCheck } from "./json-schema-check.ts";
import type { PluginTool } from "./plugin-manifest.ts";
import type { PluginHost } from "./plugin-host.ts";

// A tool description is outside text the worker reads with every request; it is bounded like an MCP server's.
const DESCRIPTION_BYTES = 2_000;
// Besides its own deadline a call may wait for a slot and for the process to start.
const QUEUE_ALLOWANCE_MS = 5_000;

/**
 * A plugin's tools as Rein tools. They pass the executor's whole pipeline
 * like any other: the surface, the input checked against the manifest's
 * JSON Schema, scope `services: plugin:<name>`, policy by effect,
 * approvals, the output checked against `output_schema`, then sizing,
 * sanitizing and fencing as external text.
 */
export function pluginTools(host: PluginHost, options: { redactor?: Redactor } = {}): AnyTool[] {
  const { manifest } = host.plugin;
  return manifest.tools.map((tool) => {
    const checks = host.plugin.checks.get(tool.name);
    if (!checks) throw new ReinError("config_invalid", `plugin ${manifest.name}: tool ${tool.name} has no compiled schema`);
    const idempotent = tool.idempotent ?? tool.effect === "read";
    const description = presentUntrusted(tool.description, {
      source: `What plugin ${manifest.name} says this tool does (the descriptions in its input schema are the plugin's words too)`,
      redactor: options.redactor,
      maxBytes: DESCRIPTION_BYTES,
    });
    const schema = presentUntrustedSchema(tool.input_schema, { redactor: options.redactor });
    if (schema.problem)
      throw new ReinError(
        "config_invalid",
        `plugin ${manifest.name}: tool ${tool.name}: ${schema.problem}; expected plain text in its input_schema's values and names`,
      );
    return defineTool({
      name: tool.name,
      description: description.text,
      effect: tool.effect,
      input: zodOfCheck(checks.input),
      // Arguments are checked against the manifest's schema; the model is shown the presented one, whose literal values are the same.
      inputJsonSchema: schema.schema,
      intake: { source: `plugin:${manifest.name}`, listing: 1, flags: [...new Set([...description.flags, ...schema.flags])].sort() },
      output: checks.output ? zodOfCheck(checks.output) : undefined,
      approval: tool.approval,
      idempotent,
      trust: "external",
      timeoutMs: tool.timeout_ms + manifest.start_timeout_ms + QUEUE_ALLOWANCE_MS,
      scope: (args) => scopeOf(tool, args, manifest.name),
      async run(args, context) {
        let result: Awaited<ReturnType<PluginHost["call"]>>;
        try {
          result = await host.call(tool.name, args, {
            runId: context.runId,
            stepId: context.stepId,
            workspaceRoot: context.workspace.directory(),
            signal: context.signal,
          });
        } catch (error) {
          const failure = supervisorFailureOf(error);
          if (!failure || !ReinError.isInstance(error)) throw error;
          throw new ReinError(error.code, error.message, {
            cause: error,
            retryable: error.retryable,
            details: { ...error.details, failure: failureClass(failure, tool, idempotent) },
          });
        }
        if (!result.ok) {
          const { code, message, retryable } = result.error;
          throw new ReinError("tool_failed", `plugin ${manifest.name} reported ${code}: ${message}`, {
            retryable,
            details: { failure: retryable ? "retryable" : "different_action", pluginError: code },
          });
        }
        return result.output;
      },
      render: (output) => (typeof output === "string" ? output : JSON.stringify(output, null, 2)),
      traceFields: () => ({ plugin: manifest.name, pluginVersion: manifest.version, sandbox: host.sandbox ?? null }),
    });
  });
}

/** The resources named by the arguments the manifest points at; without a `scope`, the plugin itself as a service. */
function scopeOf(tool: PluginTool, args: unknown, plugin: string): Scope {
  if (!tool.scope) return { services: [`plugin:${plugin}`] };
  // The arguments passed the tool's input schema, an object by the manifest's JSON Schema; anything else names nothing.
  const values = JsonObject.safeParse(args).data ?? {};
  const scope: Scope = {};
  for (const [dimension, argument] of Object.entries(tool.scope) as Array<[keyof Scope, string | undefined]>) {
    if (argument === undefined) continue;
    const value = values[argument];
    scope[dimension] =
      typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  }
  return scope;
}

/** What the model should do next after a supervisor failure of this tool. */
function failureClass(failure: SupervisorFailure, tool: PluginTool, idempotent: boolean): FailureClass {
  switch (failure) {
    case "aborted":
    case "stopped":
      return "fatal";
    case "breaker_open":
      return "different_action";
    case "queue_full":
    case "start_failed":
      return "retryable";
    default:
      // A write that crashed or hung mid-call may have done its work: the same call again could do it twice.
      return tool.effect === "read" || idempotent ? "retryable" : "different_action";
  }
}
