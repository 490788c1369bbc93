import type { ModelEntry, Price } from "@rein/models";

const apiNames: Record<ModelEntry["api"], string> = {
  "anthropic-messages": "Anthropic Messages (/v1/messages)",
  "openai-responses": "OpenAI Responses (/v1/responses)",
  "openai-chat": "OpenAI Chat Completions (/v1/chat/completions)",
};

const structuredNames: Record<ModelEntry["structuredOutput"], string> = {
  output_config: "output_config.format with a JSON schema",
  forced_tool: "a forced tool",
  json_schema: "strict json_schema",
  json_object: "JSON mode, schema in the prompt",
  prompt: "schema in the prompt",
};

/** US dollars as a price list writes them: $2, $0.10, $0.125. */
export function dollars(amount: number): string {
  if (Number.isInteger(amount)) return `$${amount}`;
  const decimals = Math.min(4, Math.max(2, (String(amount).split(".")[1] ?? "").length));
  return `$${amount.toFixed(decimals)}`;
}

const thousands = (tokens: number): string => tokens.toLocaleString("en-US");

/** One line of a price: input, output, cache read, cache writes by lifetime. */
export function priceLine(price: Price): string {
  const long = price.cacheWriteLongPerMTok;
  const writes =
    long === undefined || long === price.cacheWritePerMTok
      ? `${dollars(price.cacheWritePerMTok)} cache write`
      : `${dollars(price.cacheWritePerMTok)} cache write (short-lived), ${dollars(long)} (long-lived)`;
  return `${dollars(price.inputPerMTok)} in, ${dollars(price.outputPerMTok)} out, ${dollars(price.cacheReadPerMTok)} cache read, ${writes} per million tokens`;
}

/**
 * What the catalogue says one model accepts and costs, as labelled lines
 * for `rein models`. `price` is the one Rein counts with (config `prices`
 * over the catalogue's), `priceSource` says which.
 */
export function describeEntry(entry: ModelEntry, price: Price | undefined, priceSource: string): string[] {
  const { thinking } = entry;
  const efforts =
    thinking.efforts.length === 0
      ? "no effort parameter"
      : `effort ${thinking.efforts.join(", ")}${thinking.defaultEffort ? ` (default ${thinking.defaultEffort})` : ""}`;
  const mode = thinking.mode === "adaptive" ? "adaptive thinking" : thinking.mode === "reasoning" ? "reasoning" : "no thinking sent";
  const whenNone = entry.samplingWhenEffortNone?.length ? `; ${entry.samplingWhenEffortNone.join(", ")} only at effort none` : "";
  const sampling = entry.sampling.length === 0 ? `none (temperature refused${whenNone})` : entry.sampling.join(", ");
  const lines: [string, string][] = [
    ["catalogue", `${entry.status}${entry.id.includes("*") ? `, by the family pattern ${entry.id}` : ""}; source: ${entry.source}`],
    ["API", apiNames[entry.api]],
    ["structured", `${structuredNames[entry.structuredOutput]}; forcing one tool: ${entry.forcedToolUse ? "allowed" : "refused"}`],
    ["thinking", `${mode}; ${efforts}`],
    ["sampling", sampling],
    [
      "limits",
      `context ${thousands(entry.contextWindow)} tokens; max output ${thousands(entry.maxOutputTokens)}; max_tokens by default ${thousands(entry.defaultMaxTokens)}`,
    ],
    ["price", price ? `${priceLine(price)} (${priceSource})` : "unknown: set config prices for it, or the cost budget cannot see it"],
  ];
  if (price?.longContext)
    lines.push([
      "long context",
      `prompts above ${thousands(price.longContext.aboveInputTokens)} tokens: ${priceLine({ ...price.longContext.price })} for the whole call`,
    ]);
  lines.push(["retires", entry.retires ?? "not announced"]);
  return lines.map(([label, text]) => `  ${label.padEnd(13)} ${text}`);
}
