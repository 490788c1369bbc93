import picomatch from "picomatch";
import type { Scope } from "../../contracts/index.ts";
import type { Workspace } from "../workspace.ts";

/**
 * The scope a tool declared for a call, with every path resolved through the
 * workspace (so traversal, absolute paths outside and symlinks that leave it
 * are refused before anything runs) and rewritten relative to the root
 * where it really lands, which is what grants and policy globs are written
 * against. A glob keeps its pattern; only its static base is resolved.
 */
export async function normalizeScope(scope: Scope, workspace: Workspace): Promise<Scope> {
  const normalized: Scope = { ...scope };
  if (scope.paths) {
    normalized.paths = await Promise.all(scope.paths.map((path) => normalizePath(path, workspace)));
  }
  if (scope.hosts) normalized.hosts = scope.hosts.map((host) => host.toLowerCase().replace(/\.$/, ""));
  return normalized;
}

async function normalizePath(path: string, workspace: Workspace): Promise<string> {
  const { base, glob, isGlob } = picomatch.scan(path);
  const real = await workspace.resolve(isGlob ? base || "." : path);
  const relative = workspace.relativePath(real);
  if (!isGlob) return relative;
  return relative === "." ? glob : `${relative}/${glob}`;
}
