import type { ModelToolSchema } from "../../model-provider.ts";
import type { OpenAIEmulatorView } from "./emulator-brain.ts";
import { OpenAIEmulatorRefusal, openAIDocs } from "./emulator-refusal.ts";
import { checkSampling, effectiveEffort, type EmulatedEffort, type OpenAIEmulatedModel, modelFor } from "./emulated-models.ts";
import type { ReasoningSeal } from "./reasoning-seal.ts";
import { type IssuedCall, readResponsesInput } from "./responses-input.ts";
import { checkName, checkSchema, checkStrictSchema } from "./schema-rules.ts";

/** One accepted `POST /v1/responses`, read: what the brain sees and how the reply must be shaped. */
export interface ResponsesCall {
  view: OpenAIEmulatorView;
  model: OpenAIEmulatedModel;
  effort: EmulatedEffort | undefined;
  /** `reasoning.summary` was asked for: reasoning items carry their summary. */
  summaries: boolean;
  /** `include: ["reasoning.encrypted_content"]`: reasoning items carry their encrypted content. */
  encryptedReasoning: boolean;
  /** The request left `store` on: OpenAI keeps the response for 30 days. */
  stored: boolean;
  /** Tools whose `strict` holds: their call arguments come back as strict decoding writes them. */
  strictTools: ReadonlyMap<string, Record<string, unknown>>;
  /** The prompt as the cache sees it: its stable head, then each input item as sent. */
  cacheParts: unknown[];
  cacheTtl: unknown;
}

const includable = new Set([
  "file_search_call.results",
  "web_search_call.results",
  "web_search_call.action.sources",
  "message.input_image.image_url",
  "computer_call_output.output.image_url",
  "code_interpreter_call.outputs",
  "reasoning.encrypted_content",
  "message.output_text.logprobs",
]);
const minimumOutputTokens = 16;

type Body = Record<string, unknown>;
const objectOr = (value: unknown): Body => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Body) : {});

/**
 * Reads a Responses request body under the documented rules, refusing
 * (with OpenAI's status and body) what OpenAI refuses. The model decides
 * the reasoning efforts it takes and whether sampling parameters may be
 * sent (Using GPT-6); tools and formats are checked as the function calling
 * and structured outputs guides say.
 */
export function readResponsesRequest(
  body: Body,
  context: { models: readonly OpenAIEmulatedModel[]; seal: ReasoningSeal; issued: ReadonlyMap<string, IssuedCall> },
): ResponsesCall {
  const model = modelFor(context.models, body.model, "responses");
  const reasoning = objectOr(body.reasoning);
  if (body.reasoning !== undefined && body.reasoning !== null && !model.reasoning) {
    throw new OpenAIEmulatorRefusal({
      message: "Unsupported parameter: 'reasoning' is not supported with this model.",
      param: "reasoning",
      code: "unsupported_parameter",
      rule: openAIDocs.reasoning,
    });
  }
  const effort = effectiveEffort(model, reasoning.effort, "responses", "reasoning.effort");
  checkSampling(model, effort, body);
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw new OpenAIEmulatorRefusal({
      status: 404,
      message: `Previous response with id '${String(body.previous_response_id)}' not found.`,
      param: "previous_response_id",
      rule: openAIDocs.conversationState,
    });
  }
  const include = Array.isArray(body.include) ? body.include : [];
  const unknownInclude = include.find((value) => !includable.has(String(value)));
  if (unknownInclude !== undefined) {
    throw new OpenAIEmulatorRefusal({
      message: `Invalid value: '${String(unknownInclude)}'. Supported values are: ${[...includable].map((value) => `'${value}'`).join(", ")}.`,
      param: "include[0]",
      code: "invalid_value",
      rule: openAIDocs.responsesCreate,
    });
  }
  const maxOutputTokens = maxOutputTokensOf(body.max_output_tokens, model);
  const { tools, strictTools } = toolsOf(body.tools);
  const output = formatOf(objectOr(body.text).format, body);
  const input = readResponsesInput(body.input, { model: model.id, seal: context.seal, issued: context.issued });
  const instructions = [typeof body.instructions === "string" ? body.instructions : "", ...input.instructions].filter(Boolean).join("\n\n");
  return {
    view: {
      api: "responses",
      model: model.id,
      instructions,
      messages: input.messages,
      tools,
      ...(output ? { output } : {}),
      ...(effort ? { effort } : {}),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      stream: body.stream === true,
    },
    model,
    effort,
    summaries: typeof reasoning.summary === "string",
    encryptedReasoning: include.includes("reasoning.encrypted_content"),
    strictTools,
    stored: body.store !== false,
    cacheParts: [
      { instructions: body.instructions ?? null, tools: body.tools ?? null, text: body.text ?? null },
      ...(Array.isArray(body.input) ? body.input : [body.input]),
    ],
    cacheTtl: objectOr(body.prompt_cache_options).ttl,
  };
}

function maxOutputTokensOf(value: unknown, model: OpenAIEmulatedModel): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new OpenAIEmulatorRefusal({
      message: `Invalid type for 'max_output_tokens': expected an integer, but got ${typeof value} instead.`,
      param: "max_output_tokens",
      code: "invalid_type",
      rule: openAIDocs.responsesCreate,
    });
  }
  if (value < minimumOutputTokens) {
    throw new OpenAIEmulatorRefusal({
      message: `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${minimumOutputTokens}, but got ${value} instead.`,
      param: "max_output_tokens",
      code: "integer_below_min_value",
      rule: openAIDocs.responsesCreate,
    });
  }
  if (value > model.maxOutputTokens) {
    throw new OpenAIEmulatorRefusal({
      message: `max_output_tokens is too large: ${value}. This model supports at most ${model.maxOutputTokens} output tokens, whereas you provided ${value}.`,
      param: "max_output_tokens",
      code: "invalid_value",
      rule: openAIDocs.responsesCreate,
    });
  }
  return value;
}

/**
 * Function tools (`{type: "function", name, description, parameters,
 * strict}`): a name of `^[a-zA-Z0-9_-]{1,64}$`, parameters an object schema
 * of draft 2020-12, strict-compatible when `strict` (the default) holds.
 */
function toolsOf(value: unknown): { tools: ModelToolSchema[]; strictTools: Map<string, Record<string, unknown>> } {
  const strictTools = new Map<string, Record<string, unknown>>();
  if (value === undefined || value === null) return { tools: [], strictTools };
  if (!Array.isArray(value))
    throw new OpenAIEmulatorRefusal({
      message: "Invalid type for 'tools': expected an array.",
      param: "tools",
      code: "invalid_type",
      rule: openAIDocs.functionCalling,
    });
  const names = new Set<string>();
  const tools = value.map((tool, index) => {
    const fields = objectOr(tool);
    if (fields.type !== "function") {
      throw new OpenAIEmulatorRefusal({
        message: `Invalid value: '${String(fields.type)}'. This emulator serves function tools only.`,
        param: `tools[${index}].type`,
        code: "invalid_value",
        rule: openAIDocs.functionCalling,
      });
    }
    checkName(fields.name, `tools[${index}].name`);
    const name = fields.name as string;
    if (names.has(name)) {
      throw new OpenAIEmulatorRefusal({
        message: `Duplicate value for 'tools': the function name '${name}' is used more than once.`,
        param: "tools",
        code: "invalid_value",
        rule: openAIDocs.functionCalling,
      });
    }
    names.add(name);
    const strict = fields.strict !== false;
    const parameters = fields.parameters ?? { type: "object", properties: {} };
    if (strict) checkStrictSchema(parameters, `function '${name}'`, `tools[${index}].parameters`);
    else checkSchema(parameters, `function '${name}'`, `tools[${index}].parameters`, openAIDocs.functionCalling);
    if (strict) strictTools.set(name, parameters as Record<string, unknown>);
    return {
      name,
      description: typeof fields.description === "string" ? fields.description : "",
      inputSchema: parameters as Record<string, unknown>,
    };
  });
  return { tools, strictTools };
}

/** `text.format`: plain text, a JSON object (the input must say "json"), or a named JSON schema, strict or not. */
function formatOf(format: unknown, body: Body): OpenAIEmulatorView["output"] {
  const fields = objectOr(format);
  if (fields.type === undefined || fields.type === "text") return undefined;
  if (fields.type === "json_object") {
    if (!/json/i.test(JSON.stringify([body.instructions, body.input]))) {
      throw new OpenAIEmulatorRefusal({
        message: "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
        param: "input",
        rule: openAIDocs.structuredOutputs,
      });
    }
    return { name: "json_object", schema: { type: "object" }, strict: false };
  }
  if (fields.type !== "json_schema") {
    throw new OpenAIEmulatorRefusal({
      message: `Invalid value: '${String(fields.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      param: "text.format.type",
      code: "invalid_value",
      rule: openAIDocs.structuredOutputs,
    });
  }
  checkName(fields.name, "text.format.name");
  const name = fields.name as string;
  const strict = fields.strict === true;
  if (strict) checkStrictSchema(fields.schema, `response_format '${name}'`, "text.format.schema");
  else checkSchema(fields.schema, `response_format '${name}'`, "text.format.schema", openAIDocs.structuredOutputs, { rootObject: false });
  return { name, schema: fields.schema as Record<string, unknown>, strict };
}
