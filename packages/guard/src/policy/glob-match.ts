import { ReinError } from "@rein/contracts";

/**
 * Globs for paths, hosts, services and tool names, matched in time
 * proportional to pattern × value whatever either holds. Globs reach here
 * from models (`search_files`' glob, a delegated child's scopes), and a
 * backtracking regular expression compiled from one can take minutes on a
 * single file name (`*a*a*a*a*a*a*a*ay` against sixty a's).
 *
 * Supported, as picomatch with `dot: true` reads them: `*` (any run within
 * a segment, dotfiles included), `?` (one character), `[abc]`, `[a-z]`,
 * `[!a]` / `[^a]`, `\` escapes, `{a,b}` alternatives (nested, at most
 * MAX_ALTERNATIVES in all), and `**` as a whole segment (any number of
 * segments, none included; elsewhere it is `*`).
 */
export function compileGlob(pattern: string): (value: string) => boolean {
  const parsed = parseGlob(pattern);
  return (value) => globMatches(parsed, value);
}

export function globMatches({ alternatives, texts }: ParsedGlob, value: string): boolean {
  const segments = value.split("/");
  // As in picomatch, no wildcard covers a `.` or `..` segment: only the same text does.
  if (segments.some(isDotSegment)) return texts.includes(value);
  return alternatives.some((alternative) => matchSequence(alternative, segments, matchSegmentOrGlobstar));
}

/** A set of characters: a class, one literal (a range from it to itself), or `?` (nothing excluded). */
export interface CharSet {
  negated: boolean;
  /** Inclusive, compared as strings; a range whose low end is above its high end is left out (it holds nothing). */
  ranges: readonly (readonly [string, string])[];
}
/** A `*` within a segment, or one character from a set. */
export type CharToken = { kind: "star" } | { kind: "one"; set: CharSet };
/** `**` as a whole segment (kind "star"), or one segment's characters. */
export type GlobSegment = { kind: "star" } | { kind: "one"; tokens: CharToken[] };

/** A glob as its matcher reads it, for comparing two patterns (pattern-containment.ts). */
export interface ParsedGlob {
  /** Each `{a,b}` alternative as segments. */
  alternatives: GlobSegment[][];
  /** The alternatives as text: a value with a `.` or `..` segment matches only when it is one of these exactly. */
  texts: string[];
}

export function parseGlob(pattern: string): ParsedGlob {
  const texts = expandBraces(pattern);
  return { texts, alternatives: texts.map(parseAlternative) };
}

export const isDotSegment = (segment: string): boolean => segment === "." || segment === "..";

export function inCharSet(set: CharSet, char: string): boolean {
  return set.ranges.some(([low, high]) => char >= low && char <= high) !== set.negated;
}

/** The most alternatives `{…}` may expand to. */
export const MAX_ALTERNATIVES = 256;

function parseAlternative(pattern: string): GlobSegment[] {
  return pattern
    .split("/")
    .map((segment): GlobSegment => (segment === "**" ? { kind: "star" } : { kind: "one", tokens: tokenize(segment) }));
}

function matchSegmentOrGlobstar(segment: GlobSegment, value: string): boolean {
  return (
    segment.kind === "one" && matchSequence(segment.tokens, [...value], (token, char) => token.kind === "one" && inCharSet(token.set, char))
  );
}

/**
 * Wildcard matching with a single backtrack point: `star` items match any
 * run of units, the others one unit each. Each retry advances the last
 * star by one unit, so the work is at most items × units.
 */
function matchSequence<Item extends { kind: string }, Unit>(
  items: readonly Item[],
  units: readonly Unit[],
  matchOne: (item: Item, unit: Unit) => boolean,
): boolean {
  let item = 0;
  let unit = 0;
  let starItem = -1;
  let starUnit = 0;
  while (unit < units.length) {
    const current = items[item];
    if (current && current.kind === "star") {
      starItem = item;
      starUnit = unit;
      item += 1;
    } else if (current && matchOne(current, units[unit] as Unit)) {
      item += 1;
      unit += 1;
    } else if (starItem >= 0) {
      item = starItem + 1;
      starUnit += 1;
      unit = starUnit;
    } else {
      return false;
    }
  }
  while (items[item]?.kind === "star") item += 1;
  return item === items.length;
}

function tokenize(segment: string): CharToken[] {
  const tokens: CharToken[] = [];
  const chars = [...segment];
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] as string;
    if (char === "*") {
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (char === "?") {
      tokens.push({ kind: "one", set: { negated: true, ranges: [] } });
    } else if (char === "\\" && index + 1 < chars.length) {
      index += 1;
      const literal = chars[index];
      tokens.push(literalToken(literal as string));
    } else if (char === "[") {
      const end = chars.indexOf("]", index + 2);
      if (end < 0) {
        tokens.push(literalToken("["));
        continue;
      }
      tokens.push({ kind: "one", set: characterClass(chars.slice(index + 1, end)) });
      index = end;
    } else {
      tokens.push(literalToken(char));
    }
  }
  return tokens;
}

// One shared token per character: a long literal path would otherwise allocate four objects a character.
const literalTokens = new Map<string, CharToken>();
function literalToken(char: string): CharToken {
  let token = literalTokens.get(char);
  if (!token) {
    token = { kind: "one", set: { negated: false, ranges: [[char, char]] } };
    if (literalTokens.size < 4096) literalTokens.set(char, token);
  }
  return token;
}

function characterClass(body: string[]): CharSet {
  const negated = body[0] === "!" || body[0] === "^";
  const members = negated ? body.slice(1) : body;
  const ranges: [string, string][] = [];
  for (let index = 0; index < members.length; index += 1) {
    const low = members[index] as string;
    if (members[index + 1] === "-" && index + 2 < members.length) {
      const high = members[index + 2] as string;
      if (low <= high) ranges.push([low, high]);
      index += 2;
    } else {
      ranges.push([low, low]);
    }
  }
  return { negated, ranges };
}

/** `a{b,c{d,e}}` → `ab`, `acd`, `ace`; unbalanced braces stay literal. */
function expandBraces(pattern: string): string[] {
  const open = findOpen(pattern);
  if (open < 0) return [pattern];
  const close = findClose(pattern, open);
  if (close < 0) return [pattern];
  const options = splitTopLevel(pattern.slice(open + 1, close));
  if (options.length < 2) return [pattern];
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  const expanded: string[] = [];
  for (const option of options) {
    for (const rest of expandBraces(`${option}${tail}`)) {
      expanded.push(`${head}${rest}`);
      if (expanded.length > MAX_ALTERNATIVES) {
        throw new ReinError(
          "tool_refused",
          `the glob ${JSON.stringify(pattern.slice(0, 64))} expands to more than ${MAX_ALTERNATIVES} alternatives; expected fewer {a,b} choices`,
        );
      }
    }
  }
  return expanded;
}

function findOpen(pattern: string): number {
  for (let index = 0; index < pattern.length; index += 1) {
    if (pattern[index] === "\\") index += 1;
    else if (pattern[index] === "{") return index;
  }
  return -1;
}

function findClose(pattern: string, open: number): number {
  let depth = 0;
  for (let index = open; index < pattern.length; index += 1) {
    if (pattern[index] === "\\") index += 1;
    else if (pattern[index] === "{") depth += 1;
    else if (pattern[index] === "}" && --depth === 0) return index;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index];
    if (char === "\\") index += 1;
    else if (char === "{") depth += 1;
    else if (char === "}") depth -= 1;
    else if (char === "," && depth === 0) {
      parts.push(body.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}
