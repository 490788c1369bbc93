import { OpenAIEmulatorRefusal, openAIDocs } from "./emulator-refusal.ts";

export type EmulatedApi = "responses" | "chat";
export type EmulatedEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** What the emulators know of one model: where it is served, its limits and its reasoning efforts. */
export interface OpenAIEmulatedModel {
  id: string;
  apis: readonly EmulatedApi[];
  contextWindow: number;
  maxOutputTokens: number;
  /** Absent for a model that does not reason: a `reasoning` parameter is refused. */
  reasoning?: {
    efforts: readonly EmulatedEffort[];
    /** Chat Completions' values where they differ (GPT-6.1 Sol stops at `xhigh` there). */
    chatEfforts?: readonly EmulatedEffort[];
    defaultEffort: EmulatedEffort;
    /** GPT-6 and GPT-5.6 on Chat Completions take function tools only with reasoning effort `none`. */
    chatToolsOnlyWithoutEffort: boolean;
  };
}

const gpt6 = { contextWindow: 1_050_000, maxOutputTokens: 128_000 };
const lowToMax = ["low", "medium", "high", "xhigh", "max"] as const;
const noneToMax = ["none", "low", "medium", "high", "xhigh", "max"] as const;
const lowToXhigh = ["low", "medium", "high", "xhigh"] as const;
const noneToXhigh = ["none", "low", "medium", "high", "xhigh"] as const;
/** Astra, 6.1 Sol and 6.2: no `none`, so no function tools on Chat Completions at all ("require Responses for tool calling"). */
const withoutNone = { efforts: lowToMax, chatEfforts: lowToXhigh, defaultEffort: "medium", chatToolsOnlyWithoutEffort: true } as const;
/** GPT-6 Sol and Luna, 6.1 Terra, GPT-5.6: function calling on Chat Completions "only with reasoning_effort: none". */
const withNone = { efforts: noneToMax, chatEfforts: noneToXhigh, defaultEffort: "medium", chatToolsOnlyWithoutEffort: true } as const;

/**
 * Models as OpenAI documents them in late 2026. Sources: "Using GPT-6"
 * (developers.openai.com/api/docs/guides/latest-model) and the deployment
 * checklist (developers.openai.com/api/docs/guides/deployment-checklist):
 * GPT-6 Astra and GPT-6.1 Sol take no `none` and "require Responses for
 * tool calling", GPT-6 Sol and Luna "support function calling in Chat
 * Completions only with reasoning_effort: none", API default effort
 * `medium`; each model's page (efforts `none` or `low` to `max`, `max` on
 * Chat Completions only through Responses, as said of 6.1 Sol and assumed
 * of the others); and the `openai` SDK's model lists (`resources/shared.ts`,
 * whose `ResponsesOnlyModel` names the `-pro` and codex models served only
 * on /v1/responses). A `-pro` id not listed here is emulated from its base
 * model, on Responses only and without `none`.
 */
export const openAIEmulatedModels: readonly OpenAIEmulatedModel[] = [
  { id: "gpt-6-astra", apis: ["responses", "chat"], ...gpt6, reasoning: withoutNone },
  { id: "gpt-6.2-astra", apis: ["responses", "chat"], ...gpt6, reasoning: withoutNone },
  { id: "gpt-6.1-sol", apis: ["responses", "chat"], ...gpt6, reasoning: withoutNone },
  { id: "gpt-6.2-sol", apis: ["responses", "chat"], ...gpt6, reasoning: withoutNone },
  { id: "gpt-6-sol", apis: ["responses", "chat"], ...gpt6, reasoning: withNone },
  { id: "gpt-6-luna", apis: ["responses", "chat"], ...gpt6, reasoning: withNone },
  { id: "gpt-6.1-terra", apis: ["responses", "chat"], ...gpt6, reasoning: withNone },
  { id: "gpt-5.6-sol", apis: ["responses", "chat"], ...gpt6, reasoning: withNone },
  { id: "gpt-5.6-terra", apis: ["responses", "chat"], ...gpt6, reasoning: withNone },
  { id: "gpt-5.6-luna", apis: ["responses", "chat"], ...gpt6, reasoning: withNone },
  {
    id: "gpt-5-codex",
    apis: ["responses"],
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    reasoning: { efforts: ["low", "medium", "high"], defaultEffort: "medium", chatToolsOnlyWithoutEffort: false },
  },
  // Legacy, still served until 2027-01-14: no reasoning, sampling accepted.
  { id: "gpt-4.1", apis: ["responses", "chat"], contextWindow: 1_047_576, maxOutputTokens: 32_768 },
];

/** The model `id` names among `models`: the exact id, a dated snapshot of one, or a `-pro` variant of one. */
export function resolveModel(models: readonly OpenAIEmulatedModel[], id: string): OpenAIEmulatedModel | undefined {
  const base = id.replace(/-\d{4}-\d{2}-\d{2}$/, "");
  const exact = models.find((model) => model.id === id || model.id === base);
  if (exact) return exact;
  const pro = base.match(/^(.+)-pro$/);
  const of = pro ? models.find((model) => model.id === pro[1]) : undefined;
  if (!of?.reasoning) return undefined;
  return {
    ...of,
    id,
    apis: ["responses"],
    reasoning: { ...of.reasoning, efforts: of.reasoning.efforts.filter((effort) => effort !== "none") },
  };
}

/**
 * The model a request names, on the API it was sent to. An unknown model
 * is a 404 `model_not_found`; a Responses-only model (`-pro`, codex) sent
 * to Chat Completions is a 404 too, as OpenAI answers it.
 */
export function modelFor(models: readonly OpenAIEmulatedModel[], id: unknown, api: EmulatedApi): OpenAIEmulatedModel {
  if (typeof id !== "string" || id === "") {
    throw new OpenAIEmulatorRefusal({
      message: "you must provide a model parameter",
      param: "model",
      code: "missing_required_parameter",
      rule: openAIDocs.errorCodes,
    });
  }
  const model = resolveModel(models, id);
  if (!model) {
    throw new OpenAIEmulatorRefusal({
      status: 404,
      message: `The model \`${id}\` does not exist or you do not have access to it.`,
      param: "model",
      code: "model_not_found",
      rule: openAIDocs.errorCodes,
    });
  }
  if (!model.apis.includes(api)) {
    throw new OpenAIEmulatorRefusal({
      status: 404,
      message: "This model is only supported in v1/responses and not in v1/chat/completions.",
      param: "model",
      rule: openAIDocs.latestModel,
    });
  }
  return model;
}

/**
 * The effort a request runs at: the one it sent, which the model must list
 * for this API, else the model's default. `param` names the field as the
 * API spells it (`reasoning.effort` or `reasoning_effort`).
 */
export function effectiveEffort(model: OpenAIEmulatedModel, sent: unknown, api: EmulatedApi, param: string): EmulatedEffort | undefined {
  if (sent === undefined || sent === null) return model.reasoning?.defaultEffort;
  if (!model.reasoning) {
    throw new OpenAIEmulatorRefusal({
      message: `Unsupported parameter: '${param}' is not supported with this model.`,
      param,
      code: "unsupported_parameter",
      rule: openAIDocs.reasoning,
    });
  }
  const allowed = (api === "chat" ? model.reasoning.chatEfforts : undefined) ?? model.reasoning.efforts;
  if (typeof sent !== "string" || !allowed.includes(sent as EmulatedEffort)) {
    const listed = allowed.map((effort) => `'${effort}'`);
    throw new OpenAIEmulatorRefusal({
      message: `Unsupported value: '${param}' does not support ${JSON.stringify(sent)} with this model. Supported values are: ${listed.slice(0, -1).join(", ")}, and ${listed.at(-1)}.`,
      param,
      code: "unsupported_value",
      rule: openAIDocs.latestModel,
    });
  }
  return sent as EmulatedEffort;
}

/**
 * "When reasoning effort is not none, remove temperature, top_p, and
 * top_logprobs; also remove logprobs from Chat Completions requests and
 * message.output_text.logprobs from the Responses include array" (Using
 * GPT-6, deployment checklist): a reasoning model takes sampling
 * parameters only while it does not reason.
 */
export function checkSampling(model: OpenAIEmulatedModel, effort: EmulatedEffort | undefined, body: Record<string, unknown>): void {
  if (!model.reasoning || effort === "none") return;
  const refuse = (parameter: string): never => {
    throw new OpenAIEmulatorRefusal({
      message: `Unsupported parameter: '${parameter}' is not supported with this model.`,
      param: parameter,
      code: "unsupported_parameter",
      rule: openAIDocs.latestModel,
    });
  };
  for (const parameter of ["temperature", "top_p", "top_logprobs"])
    if (body[parameter] !== undefined && body[parameter] !== null) refuse(parameter);
  if (body.logprobs === true) refuse("logprobs");
  if (Array.isArray(body.include) && body.include.includes("message.output_text.logprobs")) refuse("include");
}
