import type { Scope } from "@rein/contracts";
import { compileGlob } from "./glob-match.ts";
import { type HostPort, parseHostPort } from "./host-port.ts";
import { type ComparisonBudget, comparisonBudget, globContains, globsOverlap } from "./pattern-containment.ts";

/** The resource kinds a scope names; each is matched by its own rule. */
export const SCOPE_DIMENSIONS = ["paths", "hosts", "commands", "services"] as const;
export type ScopeDimension = (typeof SCOPE_DIMENSIONS)[number];

// An IPv6 address in brackets is a literal, not a character class.
const isBracketed = (host: string): boolean => host.startsWith("[");

const matchers = new Map<string, (value: string) => boolean>();
// Patterns also come from models (search_files' glob): the cache must not grow without bound.
const MAX_CACHED_MATCHERS = 1000;

/** A glob compiled once (see glob-match.ts for what it supports and why it is not picomatch). */
export function globMatcher(pattern: string): (value: string) => boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = compileGlob(pattern);
    if (matchers.size >= MAX_CACHED_MATCHERS) matchers.clear();
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/**
 * Whether a literal workspace-relative path lies under a pattern (a scope's
 * paths, which may be globs, are compared with `resourceWithin`). `**` also
 * covers dotfiles: a grant of `src/**` must not silently exclude `src/.env`,
 * and a deny of `**\/.env` must catch it.
 */
export function pathMatches(pattern: string, path: string): boolean {
  return globMatcher(pattern)(path);
}

/**
 * Hosts are `name:port`. Names are case-insensitive and `*.example.com`
 * covers its subdomains. A pattern with a port matches that port only; a
 * pattern without one (a goal's grant or a policy rule may name the host
 * alone) matches the host on any port, while the deployment's allowlist
 * (`tools.hosts`) always names ports. A value without a port is matched only
 * by a pattern without one.
 */
export function hostMatches(pattern: string, value: string): boolean {
  const wanted = parseHostPort(pattern);
  const actual = parseHostPort(value);
  if (wanted.port !== undefined && wanted.port !== actual.port) return false;
  if (isBracketed(wanted.host)) return wanted.host === actual.host;
  return globMatcher(wanted.host)(actual.host);
}

/**
 * Executables match exactly: allowing `node` must not allow `/tmp/x/node`
 * or `./node`, which are different programs.
 */
export function commandMatches(pattern: string, command: string): boolean {
  return pattern === command;
}

export function serviceMatches(pattern: string, service: string): boolean {
  return globMatcher(pattern)(service);
}

/**
 * Whether `pattern` covers everything `value` names, where `value` may be a
 * pattern itself (a call's `src/**`, a child's grant): compared by pattern
 * containment (pattern-containment.ts), so `src/*` does not cover `src/**`.
 */
export function resourceWithin(dimension: ScopeDimension, pattern: string, value: string, budget = comparisonBudget()): boolean {
  switch (dimension) {
    case "paths":
    case "services":
      return globContains(pattern, value, budget);
    case "hosts":
      return hostWithin(parseHostPort(pattern), parseHostPort(value), budget);
    case "commands":
      return commandMatches(pattern, value);
  }
}

/** Whether `value` may name something `pattern` covers (true unless that is ruled out). */
export function resourceOverlaps(dimension: ScopeDimension, pattern: string, value: string, budget = comparisonBudget()): boolean {
  switch (dimension) {
    case "paths":
    case "services":
      return globsOverlap(pattern, value, budget);
    case "hosts":
      return hostsOverlap(parseHostPort(pattern), parseHostPort(value), budget);
    case "commands":
      return commandMatches(pattern, value);
  }
}

/** As `hostMatches`, with `value` a pattern: a value without a port means every port. */
function hostWithin(wanted: HostPort, actual: HostPort, budget: ComparisonBudget): boolean {
  if (wanted.port !== undefined && wanted.port !== actual.port) return false;
  if (isBracketed(wanted.host)) return wanted.host === actual.host;
  if (isBracketed(actual.host)) return globMatcher(wanted.host)(actual.host);
  return globContains(wanted.host, actual.host, budget);
}

function hostsOverlap(wanted: HostPort, actual: HostPort, budget: ComparisonBudget): boolean {
  if (wanted.port !== undefined && actual.port !== undefined && wanted.port !== actual.port) return false;
  if (isBracketed(wanted.host) && isBracketed(actual.host)) return wanted.host === actual.host;
  if (isBracketed(wanted.host)) return globMatcher(actual.host)(wanted.host);
  if (isBracketed(actual.host)) return globMatcher(wanted.host)(actual.host);
  return globsOverlap(wanted.host, actual.host, budget);
}

/**
 * The resources of `scope` that `limit` does not cover, per dimension, by
 * pattern containment. An absent list in `limit` leaves that dimension
 * unrestricted; an empty list allows nothing.
 */
export function resourcesOutside(scope: Scope, limit: Scope): { dimension: ScopeDimension; values: string[] }[] {
  const budget = comparisonBudget();
  const outside: { dimension: ScopeDimension; values: string[] }[] = [];
  for (const dimension of SCOPE_DIMENSIONS) {
    const allowed = limit[dimension];
    if (!allowed) continue;
    const values = (scope[dimension] ?? []).filter(
      (value) => !allowed.some((pattern) => resourceWithin(dimension, pattern, value, budget)),
    );
    if (values.length > 0) outside.push({ dimension, values });
  }
  return outside;
}
