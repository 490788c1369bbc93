import type { Price } from "./model-config.ts";
import { modelEntryFor } from "./catalogue/model-catalogue.ts";

/**
 * The built-in list price of a model served by `kind` ("anthropic" or
 * "openai"; other kinds serve models whose price only the operator knows),
 * in US dollars per million tokens at the standard tier: the model
 * catalogue's entry, the one place prices are kept (each entry names the
 * page it was read from; `CATALOGUE_READ_ON` is the day). A dated snapshot
 * or `-latest` alias costs what its base model costs; a long-context tier
 * comes with it. Config `prices` overrides any of them (`priceFor`).
 */
export function builtinPriceFor(kind: string, model: string): Price | undefined {
  const entry = modelEntryFor(kind, model);
  if (!entry?.price) return undefined;
  if (!entry.longContext) return entry.price;
  const { longContext: _nested, ...longRates } = entry.longContext.price;
  return { ...entry.price, longContext: { aboveInputTokens: entry.longContext.aboveInputTokens, price: longRates } };
}
