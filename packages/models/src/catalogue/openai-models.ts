import type { Price } from "../model-config.ts";
import { familyEntry } from "./family-entry.ts";
import type { Effort, ModelEntry } from "./model-entry.ts";

/**
 * OpenAI's models, read 2026-12-03 from developers.openai.com/api/docs:
 * models/<id> (efforts, endpoints, prices, the 272K long-context rule),
 * guides/latest-model ("Using GPT-6"), pricing and deprecations, and the
 * `openai` SDK's model list and announced shutdown dates
 * (`resources/shared.ts`). Retired ids are in `retired-models.ts`.
 */

const docs = "developers.openai.com/api/docs";

/** Input, output, cached input and a 30-minute cache write (GPT-5.6 and later bill writes; earlier models did not). */
const price = (
  inputPerMTok: number,
  outputPerMTok: number,
  cacheReadPerMTok: number,
  cacheWritePerMTok = 0,
  cacheWriteLongPerMTok?: number,
): Price => ({
  inputPerMTok,
  outputPerMTok,
  cacheReadPerMTok,
  cacheWritePerMTok,
  ...(cacheWriteLongPerMTok !== undefined ? { cacheWriteLongPerMTok } : {}),
});

/** "For requests with more than 272K input tokens, input and cache rates double and output costs 1.5 times the short-context rate for the full request." */
const above272K = (short: Price): NonNullable<ModelEntry["longContext"]> => ({
  aboveInputTokens: 272_000,
  price: {
    inputPerMTok: short.inputPerMTok * 2,
    outputPerMTok: short.outputPerMTok * 1.5,
    cacheReadPerMTok: short.cacheReadPerMTok * 2,
    cacheWritePerMTok: short.cacheWritePerMTok * 2,
    ...(short.cacheWriteLongPerMTok !== undefined ? { cacheWriteLongPerMTok: short.cacheWriteLongPerMTok * 2 } : {}),
  },
});

/**
 * OpenAI's reasoning models on the Responses API: function tools with
 * reasoning are refused on Chat Completions (there only at effort `none`),
 * strict `json_schema` structured output, no sampling parameters while
 * they reason. GPT-5.4 and later: a 1,050,000-token window (922K input),
 * 128K output.
 */
const reasoning = (
  efforts: Effort[],
  defaultEffort?: Effort,
): Pick<ModelEntry, "provider" | "api" | "structuredOutput" | "forcedToolUse" | "thinking" | "sampling"> => ({
  provider: "openai",
  api: "openai-responses",
  structuredOutput: "json_schema",
  forcedToolUse: true,
  thinking: { mode: "reasoning", efforts, ...(defaultEffort ? { defaultEffort } : {}) },
  sampling: [],
});

const longWindow = { contextWindow: 1_050_000, maxOutputTokens: 128_000, defaultMaxTokens: 32_000 };
const gpt5Window = { contextWindow: 400_000, maxOutputTokens: 128_000, defaultMaxTokens: 32_000 };

const noneToMax: Effort[] = ["none", "low", "medium", "high", "xhigh", "max"];
const lowToMax: Effort[] = ["low", "medium", "high", "xhigh", "max"];
const noneToXhigh: Effort[] = ["none", "low", "medium", "high", "xhigh"];
/** `temperature` and `top_p` only while the model does not reason (effort `none`). */
const samplingWhenEffortNone: ModelEntry["samplingWhenEffortNone"] = ["temperature", "top_p"];

const withLongContext = (entry: ModelEntry): ModelEntry => (entry.price ? { ...entry, longContext: above272K(entry.price) } : entry);

const sol62: ModelEntry = withLongContext({
  ...reasoning(lowToMax, "medium"),
  ...longWindow,
  id: "gpt-6.2-sol",
  price: price(2, 10, 0.1, 2.5, 5),
  status: "current",
  source: `${docs}/models/gpt-6.2-sol ("our go-to model for everyday work"; released 2026-11-17; the API rejects effort none; 12-hour cache write $5), read 2026-12-03`,
});

const astra62: ModelEntry = withLongContext({
  ...reasoning(lowToMax, "medium"),
  ...longWindow,
  id: "gpt-6.2-astra",
  price: price(8, 40, 0.4, 10),
  status: "current",
  source: `${docs}/models/gpt-6.2-astra (released 2026-11-17; effort none rejected) and pricing, read 2026-12-03`,
});

const luna6: ModelEntry = withLongContext({
  ...reasoning(noneToMax, "medium"),
  ...longWindow,
  samplingWhenEffortNone,
  id: "gpt-6-luna",
  price: price(0.1, 0.5, 0.01, 0.125),
  status: "current",
  source: `${docs}/models/gpt-6-luna (efforts none to max, default medium; function calling on Chat Completions only at effort none), read 2026-12-03`,
});

const terra61: ModelEntry = withLongContext({
  ...reasoning(lowToMax, "medium"),
  ...longWindow,
  id: "gpt-6.1-terra",
  price: price(1, 5, 0.05, 1.25, 2.5),
  status: "current",
  source: `${docs}/models/gpt-6.1-terra and pricing (30-minute and 12-hour cache writes), guides/latest-model (GPT-6.1 efforts), read 2026-12-03`,
});

const gpt6: ModelEntry[] = [
  sol62,
  astra62,
  luna6,
  terra61,
  withLongContext({
    ...reasoning(lowToMax, "medium"),
    ...longWindow,
    id: "gpt-6.1-sol",
    price: price(2, 10, 0.1, 2.5),
    status: "legacy",
    source: `${docs}/guides/latest-model (GPT-6.1 Sol: effort low, medium (default), high, xhigh, max; not none or minimal; tools through Responses) and models/gpt-6.1-sol, read 2026-12-03`,
  }),
  withLongContext({
    ...reasoning(noneToMax, "medium"),
    ...longWindow,
    samplingWhenEffortNone,
    id: "gpt-6-sol",
    price: price(2, 10, 0.2, 2.5),
    status: "legacy",
    source: `${docs}/models/gpt-6-sol (effort none, low, medium (default), high, xhigh, max; "for a newer Sol model see GPT-6.1 Sol"), read 2026-12-03`,
  }),
  withLongContext({
    ...reasoning(["low", "medium", "high", "xhigh"], "medium"),
    ...longWindow,
    id: "gpt-6-astra",
    price: price(10, 50, 1, 12.5),
    status: "legacy",
    source: `${docs}/models/gpt-6-astra and guides/latest-model (no effort none), read 2026-12-03`,
  }),
];

const gpt56: ModelEntry[] = (
  [
    ["gpt-5.6-sol", price(4, 20, 0.4, 5)],
    ["gpt-5.6-terra", price(2, 12, 0.2, 2.5)],
    ["gpt-5.6-luna", price(0.2, 1.2, 0.02, 0.25)],
  ] as const
).map(([id, rates]) =>
  withLongContext({
    ...reasoning(noneToMax, "medium"),
    ...longWindow,
    samplingWhenEffortNone,
    id,
    price: rates,
    status: "legacy",
    source: `${docs}/models/${id} (efforts none to max, default medium) and pricing (cache writes at 1.25x input, as GPT-6's pages state), read 2026-12-03`,
  }),
);

const gpt5: ModelEntry[] = [
  withLongContext({
    ...reasoning(noneToXhigh),
    ...longWindow,
    samplingWhenEffortNone,
    id: "gpt-5.5",
    price: price(5, 30, 0.5),
    status: "legacy",
    source: `${docs}/models/gpt-5.5 and pricing, read 2026-12-03`,
  }),
  withLongContext({
    ...reasoning(noneToXhigh, "none"),
    ...longWindow,
    samplingWhenEffortNone,
    id: "gpt-5.4",
    price: price(2.5, 15, 0.25),
    status: "legacy",
    source: `${docs}/models/gpt-5.4 and pricing, read 2026-12-03`,
  }),
  {
    ...reasoning(noneToXhigh, "none"),
    ...gpt5Window,
    samplingWhenEffortNone,
    id: "gpt-5.4-mini",
    price: price(0.75, 4.5, 0.075),
    status: "legacy",
    source: `${docs}/models/gpt-5.4-mini and pricing, read 2026-12-03`,
  },
  {
    ...reasoning(noneToXhigh, "none"),
    ...gpt5Window,
    samplingWhenEffortNone,
    id: "gpt-5.4-nano",
    price: price(0.2, 1.25, 0.02),
    retires: "2027-04-01",
    status: "legacy",
    source: `${docs}/deprecations and the openai SDK's shutdown dates (2027-04-01), read 2026-12-03`,
  },
  {
    ...reasoning(noneToXhigh, "none"),
    ...gpt5Window,
    samplingWhenEffortNone,
    id: "gpt-5.2",
    price: price(1.75, 14, 0.175),
    status: "legacy",
    source: `${docs}/models/gpt-5.2 and pricing, read 2026-12-03`,
  },
  {
    ...reasoning(["none", "low", "medium", "high"], "none"),
    ...gpt5Window,
    samplingWhenEffortNone,
    id: "gpt-5.1",
    price: price(1.25, 10, 0.125),
    retires: "2027-04-01",
    status: "legacy",
    source: `${docs}/deprecations and the openai SDK's shutdown dates (2027-04-01), read 2026-12-03`,
  },
  ...(
    [
      ["gpt-5", price(1.25, 10, 0.125)],
      ["gpt-5-mini", price(0.25, 2, 0.025)],
      ["gpt-5-nano", price(0.05, 0.4, 0.005)],
    ] as const
  ).map(
    ([id, rates]): ModelEntry => ({
      ...reasoning(["minimal", "low", "medium", "high"], "medium"),
      ...gpt5Window,
      id,
      price: rates,
      retires: "2026-12-11",
      status: "legacy",
      source: `${docs}/deprecations ("2026-06-11: GPT-5 and o3 model deprecations", removal 2026-12-11) and the openai SDK's shutdown dates, read 2026-12-03`,
    }),
  ),
  {
    ...reasoning(["low", "medium", "high"], "medium"),
    contextWindow: 200_000,
    maxOutputTokens: 100_000,
    defaultMaxTokens: 32_000,
    id: "o3",
    price: price(2, 8, 0.5),
    retires: "2026-12-11",
    status: "legacy",
    source: `${docs}/deprecations (removal 2026-12-11) and the openai SDK's shutdown dates, read 2026-12-03`,
  },
];

/** The -pro models answer on the Responses API only, with no cached-input discount worth counting on. */
const pro: ModelEntry[] = [
  {
    ...reasoning(["medium", "high", "xhigh"], "high"),
    ...longWindow,
    id: "gpt-5.5-pro",
    price: price(30, 180, 3),
    status: "legacy",
    source: `${docs}/models/gpt-5.5-pro (Responses API only) and pricing, read 2026-12-03`,
  },
  {
    ...reasoning(["medium", "high", "xhigh"], "high"),
    ...longWindow,
    id: "gpt-5.4-pro",
    price: price(30, 180, 3),
    status: "legacy",
    source: `${docs}/models/gpt-5.4-pro (Responses API only) and pricing, read 2026-12-03`,
  },
  {
    ...reasoning(["medium", "high", "xhigh"], "high"),
    ...gpt5Window,
    id: "gpt-5.2-pro",
    price: price(21, 168, 21),
    status: "legacy",
    source: `${docs}/models/gpt-5.2-pro (Responses API only) and pricing, read 2026-12-03`,
  },
  {
    ...reasoning(["high"], "high"),
    ...gpt5Window,
    id: "gpt-5-pro",
    price: price(15, 120, 15),
    retires: "2026-12-11",
    status: "legacy",
    source: `${docs}/models/gpt-5-pro (Responses API only, effort high only) and deprecations (removal 2026-12-11), read 2026-12-03`,
  },
];

/** GPT-4.1 and GPT-4o do not reason: Chat Completions is right for them, and they take temperature and top_p. */
const chat = (
  id: string,
  rates: Price,
  window: { contextWindow: number; maxOutputTokens: number; defaultMaxTokens: number },
): ModelEntry => ({
  id,
  provider: "openai",
  api: "openai-chat",
  structuredOutput: "json_schema",
  forcedToolUse: true,
  thinking: { mode: "none", efforts: [] },
  sampling: ["temperature", "top_p"],
  ...window,
  price: rates,
  retires: "2027-01-14",
  status: "legacy",
  source: `${docs}/models/${id}, pricing and deprecations (shutdown 2027-01-14, also in the openai SDK's data), read 2026-12-03`,
});

const gpt41Window = { contextWindow: 1_047_576, maxOutputTokens: 32_768, defaultMaxTokens: 8_192 };
const gpt4oWindow = { contextWindow: 128_000, maxOutputTokens: 16_384, defaultMaxTokens: 4_096 };

export const openAIModels: readonly ModelEntry[] = [
  ...gpt6,
  ...gpt56,
  ...gpt5,
  ...pro,
  chat("gpt-4.1", price(2, 8, 0.5), gpt41Window),
  chat("gpt-4.1-mini", price(0.4, 1.6, 0.1), gpt41Window),
  chat("gpt-4o", price(2.5, 10, 1.25), gpt4oWindow),
  chat("gpt-4o-mini", price(0.15, 0.6, 0.075), gpt4oWindow),
  familyEntry("gpt-6*-sol", sol62),
  familyEntry("gpt-6*-astra", astra62),
  familyEntry("gpt-6*-luna", luna6),
  familyEntry("gpt-6*-terra", terra61),
  {
    ...reasoning(["low", "medium", "high", "xhigh"], "medium"),
    ...longWindow,
    id: "gpt-*-codex*",
    status: "legacy",
    source: `${docs}/models (codex models answer on the Responses API only); no price is listed here, read 2026-12-03`,
  },
];
