import type { Scope } from "../contracts/index.ts";
import { compileGlob } from "./glob-match.ts";
import { parseHostPort } from "./host-port.ts";

/** The resource kinds a scope names; each is matched by its own rule. */
export const SCOPE_DIMENSIONS = ["paths", "hosts", "commands", "services"] as const;
export type ScopeDimension = (typeof SCOPE_DIMENSIONS)[number];

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
 * Whether a workspace-relative path (or a directory glob like `src/**` that a
 * call covers) lies under a pattern. `**` also covers dotfiles: a grant of
 * `src/**` must not silently exclude `src/.env`, and a deny of `**\/.env`
 * must catch it.
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
  // An IPv6 address in brackets is a literal, not a character class.
  if (wanted.host.startsWith("[")) return wanted.host === actual.host;
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

const byDimension: Record<ScopeDimension, (pattern: string, value: string) => boolean> = {
  paths: pathMatches,
  hosts: hostMatches,
  commands: commandMatches,
  services: serviceMatches,
};

export function resourceMatches(dimension: ScopeDimension, patterns: readonly string[], value: string): boolean {
  const match = byDimension[dimension];
  return patterns.some((pattern) => match(pattern, value));
}

/**
 * The resources of `scope` that `limit` does not cover, per dimension. An
 * absent list in `limit` leaves that dimension unrestricted; an empty list
 * allows nothing.
 */
export function resourcesOutside(scope: Scope, limit: Scope): { dimension: ScopeDimension; values: string[] }[] {
  const outside: { dimension: ScopeDimension; values: string[] }[] = [];
  for (const dimension of SCOPE_DIMENSIONS) {
    const allowed = limit[dimension];
    if (!allowed) continue;
    const values = (scope[dimension] ?? []).filter((value) => !resourceMatches(dimension, allowed, value));
    if (values.length > 0) outside.push({ dimension, values });
  }
  return outside;
}
