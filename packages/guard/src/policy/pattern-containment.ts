import { ReinError } from "@rein/contracts";
import {
  type CharSet,
  type CharToken,
  compileGlob,
  type GlobSegment,
  globMatches,
  isDotSegment,
  type ParsedGlob,
  parseGlob,
} from "./glob-match.ts";
import { splitGlob } from "./glob-literal.ts";

/**
 * Comparing two globs as patterns, never one as a literal path against the
 * other: read as a path, `src/**` is matched by `src/*` (its `*` covers the
 * text `**`), so a grant of `src/*` used to admit a recursive listing of
 * `src`. Both answers are exact for the globs glob-match.ts supports,
 * except that a character range is shown covered only by one range of the
 * other pattern, and where the questions of one decision cost more than
 * COMPARISON_WORK steps or a pattern cannot be read (past the brace limit);
 * then the narrower answer is given: "not contained", and "they may overlap".
 */

/** Table cells all the comparisons of one decision may fill (a few hundred is usual; this is ~0.2 s). */
export const COMPARISON_WORK = 250_000;

/** What is left of one decision's comparison work; share one across the questions of a decision. */
export interface ComparisonBudget {
  left: number;
}

export const comparisonBudget = (): ComparisonBudget => ({ left: COMPARISON_WORK });

/** Whether every path `inner` matches is matched by `outer` too (false when that is not shown). */
export function globContains(outer: string, inner: string, budget: ComparisonBudget = comparisonBudget()): boolean {
  const literal = plainLiteral(inner);
  if (literal !== undefined) return decide(() => matcher(outer)(literal)) ?? false;
  return decide(() => contains(read(outer), read(inner), budget)) ?? false;
}

/** Whether some path is matched by both `a` and `b` (true unless that is ruled out). */
export function globsOverlap(a: string, b: string, budget: ComparisonBudget = comparisonBudget()): boolean {
  const literalB = plainLiteral(b);
  if (literalB !== undefined) return decide(() => matcher(a)(literalB)) ?? true;
  const literalA = plainLiteral(a);
  if (literalA !== undefined) return decide(() => matcher(b)(literalA)) ?? true;
  return decide(() => overlaps(read(a), read(b), budget)) ?? true;
}

/**
 * The path a glob without wildcards names (escapes removed), read without
 * parsing it: the common case, a call's literal path against a rule. One
 * with a `.` or `..` segment takes the long way (the matcher compares such
 * paths by text).
 */
function plainLiteral(pattern: string): string | undefined {
  return (
    cached(literalCache, pattern, (text) => {
      const { base, rest } = splitGlob(text);
      return rest !== undefined || base.split("/").some(isDotSegment) ? null : base;
    }) ?? undefined
  );
}

type Work = ComparisonBudget;

const tooCostly = Symbol("too costly");

function decide<T>(question: () => T): T | undefined {
  try {
    return question();
  } catch (error) {
    // A pattern over the brace limit, or a question over the work limit: undecided.
    if (error === tooCostly || ReinError.isInstance(error)) return undefined;
    throw error;
  }
}

function spend(work: Work, steps: number): void {
  work.left -= steps;
  if (work.left < 0) throw tooCostly;
}

// Rules and grants come back call after call: each is read once (bounded, as patterns also come from models).
const MAX_CACHED = 1000;
const parsedCache = new Map<string, ParsedGlob>();
const matcherCache = new Map<string, (value: string) => boolean>();
// null: not a plain literal (undefined would read as "not cached").
const literalCache = new Map<string, string | null>();

function cached<T>(cache: Map<string, T>, pattern: string, make: (pattern: string) => T): T {
  let value = cache.get(pattern);
  if (value === undefined) {
    value = make(pattern);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(pattern, value);
  }
  return value;
}

const read = (pattern: string): ParsedGlob => cached(parsedCache, pattern, parseGlob);
const matcher = (pattern: string): ((value: string) => boolean) => cached(matcherCache, pattern, compileGlob);

function contains(outer: ParsedGlob, inner: ParsedGlob, work: Work): boolean {
  // A path with a `.` or `..` segment is matched only by a glob whose text it is.
  if (inner.texts.some((text) => hasDotSegment(text) && !outer.texts.includes(text))) return false;
  const literal = literalText(inner);
  if (literal !== undefined) return globMatches(outer, literal);
  return inner.alternatives.every(
    (alternative) =>
      matchesOnlyDotPaths(alternative) || outer.alternatives.some((candidate) => segmentsContain(candidate, alternative, work)),
  );
}

function overlaps(a: ParsedGlob, b: ParsedGlob, work: Work): boolean {
  if (a.texts.some((text) => hasDotSegment(text) && b.texts.includes(text))) return true;
  const literalA = literalText(a);
  if (literalA !== undefined) return globMatches(b, literalA);
  const literalB = literalText(b);
  if (literalB !== undefined) return globMatches(a, literalB);
  return a.alternatives.some(
    (left) =>
      !matchesOnlyDotPaths(left) && b.alternatives.some((right) => !matchesOnlyDotPaths(right) && segmentsOverlap(left, right, work)),
  );
}

/**
 * Every path `inner` matches is matched by `outer`, shown segment by segment:
 * an outer `**` takes any run of inner segments (`**` included), an outer
 * segment takes one inner segment whose characters it contains.
 */
function segmentsContain(outer: GlobSegment[], inner: GlobSegment[], work: Work): boolean {
  return table(outer.length, inner.length, work, (i, j, at) => {
    const segment = outer[i] as GlobSegment;
    if (segment.kind === "star") return at(i + 1, j) || (j < inner.length && at(i, j + 1));
    const candidate = inner[j];
    return candidate?.kind === "one" && at(i + 1, j + 1) && tokensContain(segment.tokens, candidate.tokens, work);
  });
}

function tokensContain(outer: CharToken[], inner: CharToken[], work: Work): boolean {
  return table(outer.length, inner.length, work, (i, j, at) => {
    const token = outer[i] as CharToken;
    if (token.kind === "star") return at(i + 1, j) || (j < inner.length && at(i, j + 1));
    const candidate = inner[j];
    return candidate?.kind === "one" && at(i + 1, j + 1) && setContains(token.set, candidate.set);
  });
}

/** Some path both match: each `**` may take a segment of the other, or end. */
function segmentsOverlap(a: GlobSegment[], b: GlobSegment[], work: Work): boolean {
  return pairTable(a, b, work, (left, right) => tokensOverlap(left.tokens, right.tokens, work));
}

function tokensOverlap(a: CharToken[], b: CharToken[], work: Work): boolean {
  return pairTable(a, b, work, (left, right) => setsIntersect(left.set, right.set));
}

type Starred<T> = { kind: "star" } | ({ kind: "one" } & T);

/** Whether `a` and `b` can be walked together to their ends: a star of either may take items of the other. */
function pairTable<T>(
  a: Starred<T>[],
  b: Starred<T>[],
  work: Work,
  both: (left: { kind: "one" } & T, right: { kind: "one" } & T) => boolean,
): boolean {
  return overlapTable(a.length, b.length, work, (i, j, at) => {
    const left = a[i];
    const right = b[j];
    if (left?.kind === "star" && (at(i + 1, j) || (right !== undefined && at(i, j + 1)))) return true;
    if (right?.kind === "star" && (at(i, j + 1) || (left !== undefined && at(i + 1, j)))) return true;
    return left?.kind === "one" && right?.kind === "one" && at(i + 1, j + 1) && both(left, right);
  });
}

type Cell = (i: number, j: number, at: (i: number, j: number) => boolean) => boolean;

/** A containment table filled from the ends: cell (i, j) says whether outer[i…] contains inner[j…]. */
function table(outerLength: number, innerLength: number, work: Work, cell: Cell): boolean {
  return fill(outerLength, innerLength, work, (i, j) => (i === outerLength ? j === innerLength : undefined), cell);
}

/** The same for overlap: both ended is a match; one ended leaves only the other's stars. */
function overlapTable(aLength: number, bLength: number, work: Work, cell: Cell): boolean {
  return fill(aLength, bLength, work, (i, j) => (i === aLength && j === bLength ? true : undefined), cell);
}

function fill(rows: number, columns: number, work: Work, edge: (i: number, j: number) => boolean | undefined, cell: Cell): boolean {
  const width = columns + 1;
  spend(work, (rows + 1) * width);
  const cells = new Uint8Array((rows + 1) * width);
  const at = (i: number, j: number) => cells[i * width + j] === 1;
  for (let i = rows; i >= 0; i -= 1) {
    for (let j = columns; j >= 0; j -= 1) {
      cells[i * width + j] = (edge(i, j) ?? cell(i, j, at)) ? 1 : 0;
    }
  }
  return at(0, 0);
}

/** Every character `inner` holds, `outer` holds. A range is shown covered only by one range of the other. */
function setContains(outer: CharSet, inner: CharSet): boolean {
  if (!outer.negated) return !inner.negated && inner.ranges.every((range) => outer.ranges.some((cover) => within(range, cover)));
  if (inner.negated) return outer.ranges.every((excluded) => inner.ranges.some((cover) => within(excluded, cover)));
  return inner.ranges.every((range) => outer.ranges.every((excluded) => disjoint(range, excluded)));
}

function setsIntersect(a: CharSet, b: CharSet): boolean {
  if (a.negated && b.negated) return true;
  if (a.negated) return b.ranges.some((range) => !a.ranges.some((excluded) => within(range, excluded)));
  if (b.negated) return setsIntersect(b, a);
  return a.ranges.some((left) => b.ranges.some((right) => !disjoint(left, right)));
}

type Range = readonly [string, string];
const within = ([low, high]: Range, [coverLow, coverHigh]: Range): boolean => coverLow <= low && high <= coverHigh;
const disjoint = ([low, high]: Range, [otherLow, otherHigh]: Range): boolean => high < otherLow || otherHigh < low;

const hasDotSegment = (text: string): boolean => text.split("/").some(isDotSegment);

/** An alternative with a segment that is `.` or `..` (written as such or escaped) matches only paths that have one. */
function matchesOnlyDotPaths(alternative: GlobSegment[]): boolean {
  return alternative.some((segment) => {
    if (segment.kind !== "one") return false;
    const text = literalSegment(segment.tokens);
    return text !== undefined && isDotSegment(text);
  });
}

function literalSegment(tokens: CharToken[]): string | undefined {
  let text = "";
  for (const token of tokens) {
    if (token.kind !== "one" || token.set.negated || token.set.ranges.length !== 1) return undefined;
    const [low, high] = token.set.ranges[0] as Range;
    if (low !== high) return undefined;
    text += low;
  }
  return text;
}

function literalText(parsed: ParsedGlob): string | undefined {
  if (parsed.alternatives.length !== 1) return undefined;
  const segments: string[] = [];
  for (const segment of parsed.alternatives[0] as GlobSegment[]) {
    const text = segment.kind === "one" ? literalSegment(segment.tokens) : undefined;
    if (text === undefined || isDotSegment(text)) return undefined;
    segments.push(text);
  }
  return segments.join("/");
}
