import type { ModelEntry } from "./model-entry.ts";

/**
 * The catalogue entry for ids of a current line that are not listed yet (a
 * claude-sonnet-5-6, a gpt-6.3-sol): `pattern` (`*` matches any run of
 * characters) accepts what the line's latest known model does. It has no
 * price: config `prices` gives one, and until then the run's start says the
 * cost budget cannot see it.
 */
export function familyEntry(pattern: string, latest: ModelEntry): ModelEntry {
  const { price: _price, longContext: _longContext, retires: _retires, ...rest } = latest;
  return { ...rest, id: pattern, source: `family pattern: accepts what ${latest.id} does (${latest.source})` };
}
