import { type Scope, ReinError } from "@rein/contracts";
import { isDotSegment, escapeGlob, splitGlob, unescapeGlob, formatHostPort, parseHostPort, SCOPE_DIMENSIONS } from "@rein/guard";
import { pathSizeProblem } from "../path-limits.ts";
import type { Workspace } from "../workspace.ts";

/** The most resources of one kind a single call may name. */
export const MAX_SCOPE_ENTRIES = 64;
/** The longest host (`name:port`), command or service a scope may name. */
export const MAX_SCOPE_NAME_CHARS = 300;

/**
 * The scope a tool declared for a call, with every path resolved through the
 * workspace (so traversal, absolute paths outside and symlinks that leave it
 * are refused before anything runs) and rewritten relative to the root
 * where it really lands, which is what grants and policy globs are written
 * against. Paths are globs (a literal one escaped, `escapeGlob`): a glob
 * keeps its pattern and only its literal base is resolved; a `.` or `..`
 * after its first wildcard is refused, since no pattern could say where it
 * lands.
 */
export async function normalizeScope(scope: Scope, workspace: Workspace): Promise<Scope> {
  assertScopeBounded(scope);
  const normalized: Scope = { ...scope };
  if (scope.paths) {
    normalized.paths = await Promise.all(scope.paths.map((path) => normalizePath(path, workspace)));
  }
  if (scope.hosts) normalized.hosts = scope.hosts.map((host) => formatHostPort(parseHostPort(host)));
  return normalized;
}

async function normalizePath(path: string, workspace: Workspace): Promise<string> {
  const { base, rest } = splitGlob(path);
  if (rest?.split("/").some((segment) => isDotSegment(unescapeGlob(segment)))) {
    throw invalidScope(
      `${JSON.stringify(path.slice(0, 64))} has a . or .. segment after a wildcard; expected a glob that steps only forward, e.g. src/**`,
    );
  }
  const relative = workspace.relativePath(await workspace.resolve(base || "."));
  if (rest === undefined) return escapeGlob(relative);
  return relative === "." ? rest : `${escapeGlob(relative)}/${rest}`;
}

/**
 * Any tool's scope — built-in, `defineTool` or MCP — is bounded here,
 * before resolution and policy matching, whatever its own schema allowed:
 * their cost grows with what a scope names. A breach is the model's input
 * at fault, so it is refused as invalid input.
 */
function assertScopeBounded(scope: Scope): void {
  for (const dimension of SCOPE_DIMENSIONS) {
    const values = scope[dimension] ?? [];
    if (values.length > MAX_SCOPE_ENTRIES) {
      throw invalidScope(`a call may name at most ${MAX_SCOPE_ENTRIES} ${dimension}; this one names ${values.length}`);
    }
    for (const value of values) {
      const problem = dimension === "paths" ? pathSizeProblem(value) : nameSizeProblem(dimension, value);
      if (problem) throw invalidScope(problem);
    }
  }
}

function nameSizeProblem(dimension: string, value: string): string | undefined {
  if (value.length <= MAX_SCOPE_NAME_CHARS) return undefined;
  return `a name may have at most ${MAX_SCOPE_NAME_CHARS} characters; one of its ${dimension} has ${value.length}`;
}

function invalidScope(problem: string): ReinError {
  return new ReinError("workspace_violation", problem, { details: { invalidInput: true } });
}
