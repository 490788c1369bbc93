import type { z } from "zod";
import { type Scope, type ToolEffect, jsonSchemaOf } from "@rein/contracts";
import type { ToolSpec } from "@rein/contracts/calls";
import type { Logger, EntryScreen, SecretReader } from "@rein/guard";
import type { Workspace } from "./workspace.ts";

/** An image a tool's result shows the model (base64 data), for providers that take images. */
export interface ToolImage {
  mediaType: string;
  data: string;
}

/** How far a long call has got, as its tool reports it (an MCP server's `notifications/progress`). */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Where tools put large outputs; observations reference them by id. */
export interface ArtifactWriter {
  put(runId: string, content: string, meta?: { tool?: string; mediaType?: string }): Promise<string>;
}

export interface ToolContext {
  runId: string;
  stepId: string;
  callId: string;
  /** runId:stepId:attempt:callIndex; the same for a call re-run after a crash of that attempt, new for a retry. */
  idempotencyKey: string;
  signal: AbortSignal;
  workspace: Workspace;
  secrets: SecretReader;
  artifacts: ArtifactWriter;
  logger: Logger;
  /** Reports how far the call has got; the executor traces it (`tool.progress`, throttled). */
  progress?: (update: ToolProgress) => void;
  /** The permission policy over each entry an enumerating tool would return (see `enumerates`). */
  screen: EntryScreen;
}

export type ApprovalRule<Input> = "never" | "always" | ((args: Input, context: { runId: string; stepId: string }) => boolean);

export interface ToolDefinition<Input = unknown, Output = unknown> {
  name: string;
  /** What the tool does, with its side effects spelled out; models read this. */
  description: string;
  effect: ToolEffect;
  input: z.ZodType<Input>;
  output?: z.ZodType<Output>;
  /** @defaultValue "never" */
  approval: ApprovalRule<Input>;
  /**
   * Doing the call twice leaves the world as doing it once (`write_file`
   * with the same content). Such a call is retried on transient failures and,
   * when a crash cut it off before it recorded how it ended, simply run
   * again; any other side effect is then reported as "outcome unknown after a
   * crash" and never repeated (see docs/effects.md).
   * @defaultValue true for read tools, false otherwise
   */
  idempotent: boolean;
  /** @defaultValue true for read tools, false otherwise */
  concurrencySafe: boolean;
  /** @defaultValue 30_000 */
  timeoutMs: number;
  /**
   * The resources a call touches, for the permission policy and approvals.
   * Paths are globs: name a literal path through `escapeGlob`.
   */
  scope: (args: Input) => Scope;
  /**
   * The call's path patterns name what it enumerates (lists, searches), and
   * `run` passes every entry it would return through `context.screen`: a
   * deny or ask rule covering part of the pattern then withholds those
   * entries rather than deciding the whole call (docs/policy.md).
   * @defaultValue false
   */
  enumerates: boolean;
  run: (args: Input, context: ToolContext) => Promise<Output>;
  /** Renders the output as the text an observation carries. */
  render: (output: Output) => string;
  /** Facts about a result every `tool.executed` event records, however large the output (`run_command`: its sandbox). */
  traceFields?: (output: Output) => Record<string, string | number | boolean | null>;
  /** Images the output shows the model beside its text (an MCP tool's image content). */
  images?: (output: Output) => ToolImage[];
  /**
   * Where the output's text comes from, for provenance.
   * @defaultValue "external" for external tools, "tool" otherwise
   */
  trust?: "tool" | "external";
  /** A JSON Schema shown to models instead of the one derived from `input` (MCP tools bring their own). */
  inputJsonSchema?: Record<string, unknown>;
  /** Set when the description and input schema were written outside the runtime (an MCP server, a plugin); see `SchemaIntake`. */
  intake?: SchemaIntake;
}

/**
 * Where an outside tool's description and schema came from and what the
 * presenter found in them when they entered; a step offered the tool traces
 * it (`step.tool_schemas`) when there is something to say.
 */
export interface SchemaIntake {
  /** `mcp:<server>` or `plugin:<name>`. */
  source: string;
  /** Which listing of its source it came from: 1 at start, more after `list_changed` or a restart. */
  listing: number;
  /** The presenter's findings (`special_token`, `role_tag`, `truncated`, …), sorted. */
  flags: string[];
}

// `any` here lets a registry hold tools of different input/output types; each
// tool's own schema checks its arguments at the boundary.
// biome-ignore lint/suspicious/noExplicitAny: heterogeneous tool collections
export type AnyTool = ToolDefinition<any, any>;

export type ToolOptions<Input, Output> = Pick<ToolDefinition<Input, Output>, "name" | "description" | "effect" | "input" | "run"> &
  Partial<Omit<ToolDefinition<Input, Output>, "name" | "description" | "effect" | "input" | "run">>;

const defaultRender = (output: unknown): string => (typeof output === "string" ? output : JSON.stringify(output, null, 2));

export function defineTool<Input, Output>(options: ToolOptions<Input, Output>): ToolDefinition<Input, Output> {
  const readOnly = options.effect === "read";
  return {
    approval: "never",
    idempotent: readOnly,
    concurrencySafe: readOnly,
    enumerates: false,
    timeoutMs: 30_000,
    scope: () => ({}),
    render: defaultRender as (output: Output) => string,
    ...options,
  };
}

/** The static contract of a tool, with its input schema as JSON Schema. */
// Converting zod to JSON Schema is the costliest part of offering a tool;
// a tool's spec never changes, so it is built once per tool.
const specs = new WeakMap<AnyTool, ToolSpec>();

export function toolSpecOf(tool: AnyTool): ToolSpec {
  const known = specs.get(tool);
  if (known) return known;
  const spec: ToolSpec = {
    name: tool.name,
    description: tool.description,
    effect: tool.effect,
    inputSchema: tool.inputJsonSchema ?? jsonSchemaOf(tool.input),
    outputSchema: tool.output ? jsonSchemaOf(tool.output) : undefined,
    idempotent: tool.idempotent,
    concurrencySafe: tool.concurrencySafe,
    timeoutMs: tool.timeoutMs,
    approval: typeof tool.approval === "function" ? "conditional" : tool.approval,
  };
  specs.set(tool, spec);
  return spec;
}
