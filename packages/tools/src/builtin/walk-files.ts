import type { Dirent } from "node:fs";
import { join } from "node:path";
import type { Workspace } from "../workspace.ts";

export interface WalkEntry {
  /** Relative to the directory walked, with / separators. */
  path: string;
  kind: "file" | "directory" | "symlink" | "other";
}

// Noise a model rarely wants and that can dwarf a listing.
const SKIPPED = new Set([".git", "node_modules"]);

/** The most entries one walk looks at, returned or not: entries left out must not make it unbounded. */
export const MAX_WALKED = 100_000;

export interface WalkOptions {
  recursive: boolean;
  /** The most entries returned. */
  limit: number;
  /** Whether an entry is returned (a directory left out is still walked). @defaultValue every entry */
  keep?: (path: string) => boolean;
}

/**
 * Entries under a real directory of the workspace, breadth-first, never
 * following symlinks (a symlink inside the workspace may point out of it,
 * and a directory swapped for one while the walk runs is not read),
 * stopping at `limit`.
 */
export async function walkFiles(
  workspace: Workspace,
  root: string,
  options: WalkOptions,
): Promise<{ entries: WalkEntry[]; complete: boolean }> {
  const entries: WalkEntry[] = [];
  const queue: string[] = [""];
  let walked = 0;
  while (queue.length > 0) {
    const relative = queue.shift() as string;
    let children: Dirent[];
    try {
      children = await workspace.readDirectory(join(root, relative));
    } catch {
      continue;
    }
    children.sort((a, b) => a.name.localeCompare(b.name));
    for (const child of children) {
      if (walked >= MAX_WALKED) return { entries, complete: false };
      walked += 1;
      const path = relative ? `${relative}/${child.name}` : child.name;
      const kind = child.isSymbolicLink() ? "symlink" : child.isDirectory() ? "directory" : child.isFile() ? "file" : "other";
      if (kind === "directory" && options.recursive && !SKIPPED.has(child.name)) queue.push(path);
      if (options.keep && !options.keep(path)) continue;
      if (entries.length >= options.limit) return { entries, complete: false };
      entries.push({ path, kind });
    }
  }
  return { entries, complete: true };
}
