import type { IncomingHttpHeaders } from "node:http";
import type { EmulatedModel } from "./anthropic-emulated-models.ts";
import type { CacheControl, WireBlock, WireMessage, WireRequest } from "./anthropic-emulator-request.ts";
import { docs, type Refusal, refusal } from "./anthropic-emulator-refusal.ts";
import { isDraft202012, schemaComplexity, structuredSchemaProblem } from "./anthropic-schema-limits.ts";

/**
 * The documented rules of the Messages API (anthropic-version 2026-10-21)
 * that a request is checked against before a model sees it. Each returns
 * the refusal the API documents, or undefined when the request keeps the
 * rule; each names the page it comes from.
 */

export type ModelUnderRequest = { id: string; facts: EmulatedModel };

/** API versions the emulator speaks; the installed SDK sends 2026-10-21. */
export const apiVersions = ["2023-06-01", "2026-10-21"];

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(",") : value) ?? "";
};

export const betasOf = (headers: IncomingHttpHeaders): string[] =>
  header(headers, "anthropic-beta")
    .split(",")
    .map((beta) => beta.trim())
    .filter(Boolean);

/** "When making API requests, you must send an anthropic-version request header", and a key (versioning page, errors page). */
export function headerRules(headers: IncomingHttpHeaders): Refusal | undefined {
  const key = header(headers, "x-api-key") || header(headers, "authorization").replace(/^Bearer\s+/i, "");
  if (!key) return refusal("headers.auth", 401, "x-api-key header is required", docs.errors, "authentication_error");
  const version = header(headers, "anthropic-version");
  if (!version) return refusal("headers.version", 400, "anthropic-version: header is required", docs.versioning);
  if (!apiVersions.includes(version)) {
    return refusal(
      "headers.version",
      400,
      `anthropic-version: "${version}" is not a valid version; expected one of ${apiVersions.join(", ")}`,
      docs.versioning,
    );
  }
  return undefined;
}

const samplingParameters = ["temperature", "top_p", "top_k"] as const;

/**
 * Version 2026-10-21 removed `temperature`, `top_p` and `top_k` ("A request
 * that sends any" of them returns a 400, versioning page); on 2023-06-01 a
 * current model refuses a non-default value (Sonnet 5.5 migration guide:
 * "On Claude Sonnet 5.5, a non-default value returns a 400 error").
 */
export function samplingRule(body: Record<string, unknown>, version: string, model: ModelUnderRequest | undefined): Refusal | undefined {
  for (const name of samplingParameters) {
    if (!(name in body)) continue;
    if (version === "2026-10-21") return refusal("sampling.removed", 400, `${name}: Extra inputs are not permitted`, docs.versioning);
    const isDefault = name === "temperature" && body[name] === 1;
    if (model && !model.facts.samplingParameters && !isDefault) {
      return refusal("sampling.refused", 400, `\`${name}\` is deprecated for this model.`, docs.migrationSonnet55);
    }
  }
  return undefined;
}

/** All rules on a well-formed body for a known model, in the order the API reports them. */
export function requestRules(
  request: WireRequest,
  messages: readonly WireMessage[],
  model: ModelUnderRequest,
  headers: IncomingHttpHeaders,
): Refusal | undefined {
  return (
    maxTokensRule(request, model) ??
    thinkingRule(request, model, betasOf(headers)) ??
    effortRule(request, model) ??
    toolChoiceRule(request, model) ??
    toolRules(request) ??
    outputFormatRule(request) ??
    complexityRule(request) ??
    prefillRule(messages, model) ??
    toolResultRules(messages) ??
    cacheControlRules(request, messages)
  );
}

/** `max_tokens` is at most the model's max output (models overview, "Max output"). */
function maxTokensRule(request: WireRequest, model: ModelUnderRequest): Refusal | undefined {
  const limit = model.facts.maxOutputTokens;
  if (request.max_tokens <= limit) return undefined;
  return refusal(
    "max_tokens.limit",
    400,
    `max_tokens: ${request.max_tokens} > ${limit}, which is the maximum allowed number of output tokens for ${model.id}`,
    docs.models,
  );
}

/** Which `thinking` types and fields a model takes (Sonnet 5.5 what's new and migration guide, thinking page). */
function thinkingRule(request: WireRequest, model: ModelUnderRequest, betas: string[]): Refusal | undefined {
  const thinking = request.thinking;
  if (!thinking) return undefined;
  if (!model.facts.thinkingTypes.includes(thinking.type)) {
    const message =
      thinking.type === "disabled" && model.facts.thinkingTypes.includes("between_tools")
        ? 'To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of {"type": "disabled"}. The model does not think before responding. The short updates it writes between tool calls come back as thinking blocks.'
        : `"thinking.type.${thinking.type}" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`;
    return refusal("thinking.type", 400, message, docs.whatsNewSonnet55);
  }
  if (thinking.type === "between_tools") {
    if (thinking.display != null || thinking.budget_tokens !== undefined || thinking.block_binding !== undefined) {
      return refusal(
        "thinking.between_tools",
        400,
        "thinking: `between_tools` takes no other field (display, budget_tokens, block_binding)",
        docs.whatsNewSonnet55,
      );
    }
    const effort = request.output_config?.effort;
    if (effort === "xhigh" || effort === "max") {
      return refusal(
        "thinking.between_tools",
        400,
        `thinking: \`between_tools\` is accepted at low, medium and high effort, not at ${effort}; use adaptive thinking`,
        docs.whatsNewSonnet55,
      );
    }
  }
  if (thinking.display != null) {
    const accepted = ["summarized", "omitted", ...(betas.includes("thinking-display-updates-2026-08-18") ? ["updates"] : [])];
    if (thinking.type === "disabled")
      return refusal("thinking.display", 400, "thinking.display: display is invalid with thinking.type disabled", docs.thinking);
    if (!accepted.includes(thinking.display)) {
      return refusal(
        "thinking.display",
        400,
        `thinking.display: Input should be ${accepted.map((value) => `'${value}'`).join(" or ")}`,
        docs.thinking,
      );
    }
  }
  if (thinking.block_binding !== undefined && !betas.includes("thinking-binding-controls-2026-08-01")) {
    return refusal(
      "thinking.block_binding",
      400,
      "thinking.block_binding: requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header",
      docs.preservedThinking,
    );
  }
  return undefined;
}

/** `output_config.effort` takes the model's levels only; `adaptive` is a thinking mode, not an effort (effort page, thinking page). */
function effortRule(request: WireRequest, model: ModelUnderRequest): Refusal | undefined {
  const effort = request.output_config?.effort;
  if (effort == null || model.facts.efforts.includes(effort)) return undefined;
  return refusal(
    "effort",
    400,
    `output_config.effort: '${effort}' is not supported for this model; expected one of ${model.facts.efforts.join(", ")}`,
    docs.effort,
  );
}

/** "tool_choice set to {"type": "any"} or {"type": "tool", "name": "..."} returns a 400" on Sonnet 5.5 (what's new). */
function toolChoiceRule(request: WireRequest, model: ModelUnderRequest): Refusal | undefined {
  const choice = request.tool_choice;
  if (!choice || model.facts.forcedToolUse || (choice.type !== "any" && choice.type !== "tool")) return undefined;
  return refusal("tool_choice.forced", 400, 'tool_choice: type "tool" and "any" are not supported for this model.', docs.whatsNewSonnet55);
}

const toolName = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A tool's name matches `^[a-zA-Z0-9_-]{1,64}$` (define tools page); its
 * `input_schema` is a draft 2020-12 JSON Schema (API reference); a strict
 * tool's schema keeps to the structured-output limitations.
 */
function toolRules(request: WireRequest): Refusal | undefined {
  for (const [index, tool] of (request.tools ?? []).entries()) {
    if (!toolName.test(tool.name)) {
      return refusal("tools.name", 400, `tools.${index}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`, docs.defineTools);
    }
    if (!isDraft202012(tool.input_schema)) {
      return refusal(
        "tools.input_schema",
        400,
        `tools.${index}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12).`,
        docs.messages,
      );
    }
    const problem = tool.strict ? structuredSchemaProblem(tool.input_schema, `tools.${index}.input_schema`) : undefined;
    if (problem) return refusal("tools.strict_schema", 400, problem, docs.structuredOutputs);
  }
  return undefined;
}

/** `output_config.format` schemas keep to the JSON Schema limitations ("If you use an unsupported feature, you'll receive a 400 error"). */
function outputFormatRule(request: WireRequest): Refusal | undefined {
  const schema = request.output_config?.format?.schema;
  const problem = schema ? structuredSchemaProblem(schema, "output_config.format.schema") : undefined;
  return problem ? refusal("output_config.format", 400, problem, docs.structuredOutputs) : undefined;
}

/** At most 20 strict tools, 24 optional and 16 union-typed parameters across strict schemas (explicit limits). */
function complexityRule(request: WireRequest): Refusal | undefined {
  const strictTools = (request.tools ?? []).filter((tool) => tool.strict);
  if (strictTools.length > 20)
    return refusal("schema.complexity", 400, `tools: ${strictTools.length} tools have strict: true; at most 20 may`, docs.complexity);
  const schemas = [
    ...strictTools.map((tool) => tool.input_schema),
    ...(request.output_config?.format ? [request.output_config.format.schema] : []),
  ];
  const totals = schemas
    .map(schemaComplexity)
    .reduce((sum, next) => ({ optional: sum.optional + next.optional, unions: sum.unions + next.unions }), { optional: 0, unions: 0 });
  if (totals.optional > 24) {
    return refusal(
      "schema.complexity",
      400,
      `Schema is too complex for compilation: ${totals.optional} optional parameters across strict schemas; at most 24`,
      docs.complexity,
    );
  }
  if (totals.unions > 16) {
    return refusal(
      "schema.complexity",
      400,
      `Schema is too complex for compilation: ${totals.unions} parameters with union types across strict schemas; at most 16`,
      docs.complexity,
    );
  }
  return undefined;
}

/** "This model does not support assistant message prefill" (Sonnet 5.5 migration guide). */
function prefillRule(messages: readonly WireMessage[], model: ModelUnderRequest): Refusal | undefined {
  if (model.facts.prefill || messages.at(-1)?.role !== "assistant") return undefined;
  return refusal(
    "messages.prefill",
    400,
    "This model does not support assistant message prefill. The conversation must end with a user message.",
    docs.migrationSonnet55,
  );
}

/**
 * "Tool result blocks must immediately follow their corresponding tool use
 * blocks", and "the tool_result blocks must come FIRST in the content
 * array" (handle tool calls page).
 */
function toolResultRules(messages: readonly WireMessage[]): Refusal | undefined {
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant") {
      const asked = message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
      const next = messages[index + 1];
      if (asked.length === 0 || !next) continue;
      const answered = new Set(next.content.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : [])));
      const missing = asked.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return refusal(
          "messages.tool_result",
          400,
          `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          docs.handleToolCalls,
        );
      }
      continue;
    }
    const previous = messages[index - 1];
    const asked = new Set(previous?.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])) ?? []);
    let other = false;
    for (const [position, block] of message.content.entries()) {
      if (block.type !== "tool_result") {
        other = true;
        continue;
      }
      if (!asked.has(block.tool_use_id)) {
        return refusal(
          "messages.tool_result",
          400,
          `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          docs.handleToolCalls,
        );
      }
      if (other) {
        return refusal(
          "messages.tool_result",
          400,
          `messages.${index}.content.${position}: tool_result blocks must come first in the content array; any text must come after all tool results`,
          docs.handleToolCalls,
        );
      }
    }
  }
  return undefined;
}

/** Breakpoints in prompt order (tools, system, messages), each a cache_control's TTL. */
export function breakpointsOf(request: WireRequest, messages: readonly WireMessage[]): { path: string; ttl: "5m" | "1h" }[] {
  const found: { path: string; ttl: "5m" | "1h" }[] = [];
  const add = (path: string, control: CacheControl | null | undefined) => {
    if (control) found.push({ path, ttl: control.ttl ?? "5m" });
  };
  for (const [index, tool] of (request.tools ?? []).entries()) add(`tools.${index}`, tool.cache_control);
  if (Array.isArray(request.system)) for (const [index, block] of request.system.entries()) add(`system.${index}`, block.cache_control);
  for (const [index, message] of messages.entries()) {
    for (const [position, block] of message.content.entries()) {
      if ("cache_control" in block) add(`messages.${index}.content.${position}`, block.cache_control);
      if (block.type !== "tool_result" || !Array.isArray(block.content)) continue;
      for (const [at, inner] of block.content.entries()) add(`messages.${index}.content.${position}.content.${at}`, inner.cache_control);
    }
  }
  return found;
}

const cacheable = (block: WireBlock): boolean =>
  block.type !== "thinking" && block.type !== "redacted_thinking" && !(block.type === "text" && block.text === "");

/**
 * At most 4 cache_control breakpoints; a top-level (automatic) one takes the
 * last cacheable block, clashing with an explicit one of another TTL there
 * or with 4 explicit ones; a 1-hour entry never after a 5-minute one
 * (prompt caching page: explicit breakpoints, automatic caching edge cases,
 * mixing TTLs).
 */
function cacheControlRules(request: WireRequest, messages: readonly WireMessage[]): Refusal | undefined {
  const explicit = breakpointsOf(request, messages);
  let total = explicit.length;
  if (request.cache_control) {
    const last = lastCacheableBlock(messages);
    const marked = last?.block && "cache_control" in last.block ? last.block.cache_control : undefined;
    if (marked && (marked.ttl ?? "5m") !== (request.cache_control.ttl ?? "5m")) {
      return refusal(
        "cache_control.automatic",
        400,
        `cache_control: the last cacheable block (${last?.path}) already has a cache_control with another ttl`,
        docs.promptCaching,
      );
    }
    if (!marked) total += 1;
    if (!marked && explicit.length >= 4)
      return refusal(
        "cache_control.automatic",
        400,
        `A maximum of 4 blocks with cache_control may be provided. Found ${total}.`,
        docs.promptCaching,
      );
  }
  if (total > 4)
    return refusal(
      "cache_control.max",
      400,
      `A maximum of 4 blocks with cache_control may be provided. Found ${total}.`,
      docs.promptCaching,
    );
  const firstShort = explicit.findIndex((breakpoint) => breakpoint.ttl === "5m");
  const lateLong = explicit.find((breakpoint, index) => breakpoint.ttl === "1h" && firstShort >= 0 && index > firstShort);
  if (lateLong) {
    return refusal(
      "cache_control.ttl_order",
      400,
      `${lateLong.path}.cache_control: a 1h cache entry must appear before any 5m cache entry`,
      docs.promptCaching,
    );
  }
  return undefined;
}

/** The block automatic caching marks: "the last cacheable block" of the request. */
export function lastCacheableBlock(messages: readonly WireMessage[]): { path: string; block: WireBlock } | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const content = messages[index]?.content ?? [];
    for (let position = content.length - 1; position >= 0; position -= 1) {
      const block = content[position];
      if (block && cacheable(block)) return { path: `messages.${index}.content.${position}`, block };
    }
  }
  return undefined;
}
