import { stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ReinError } from "@rein/contracts";
import { escapeGlob, pathMatches } from "@rein/guard";
import { defineTool } from "../define-tool.ts";
import type { Workspace } from "../workspace.ts";
import { type BuiltinToolOptions, DEFAULT_MAX_FILE_BYTES } from "./builtin-options.ts";
import { readTextFile } from "./file-tools.ts";
import { boundedPath, boundedString, INPUT_LIMITS } from "./input-limits.ts";
import { MAX_WALKED, walkFiles } from "./walk-files.ts";

const Directory = boundedPath()
  .default(".")
  .describe(
    `a directory relative to the workspace root; at most ${INPUT_LIMITS.pathChars} characters and ${INPUT_LIMITS.pathComponents} components`,
  );

const under = (directory: string, glob: string) => (directory === "." ? glob : `${directory.replace(/\/+$/, "")}/${glob}`);

/** What the call enumerates, as a pattern: the directory is a literal path. */
const enumerated = (directory: string, glob: string) => under(escapeGlob(directory), glob);

export function listFilesTool() {
  return defineTool({
    name: "list_files",
    description:
      "List the entries of a workspace directory (directories end with /, symlinks with @). Set recursive to list everything below it. No side effects.",
    effect: "read",
    enumerates: true,
    input: z
      .object({
        path: Directory,
        recursive: z.boolean().default(false),
        maxEntries: z.number().int().positive().max(10_000).default(1000),
      })
      .strict(),
    scope: (args) => ({ paths: [enumerated(args.path, args.recursive ? "**" : "*")] }),
    async run(args, context) {
      const real = await context.workspace.resolve(args.path);
      if (!(await stat(real)).isDirectory()) throw new ReinError("tool_failed", `${args.path} is not a directory`);
      const base = context.workspace.relativePath(real);
      const { entries, complete } = await walkFiles(context.workspace, real, {
        recursive: args.recursive,
        limit: args.maxEntries,
        keep: (path) => context.screen.admits(under(base, path)),
      });
      const lines = entries.map((entry) => `${entry.path}${entry.kind === "directory" ? "/" : entry.kind === "symlink" ? "@" : ""}`);
      if (!complete) lines.push(`(stopped after ${entries.length} entries)`);
      const withheld = context.screen.note("entries");
      if (withheld) lines.push(`(${withheld})`);
      return lines;
    },
    render: (lines) => lines.join("\n"),
  });
}

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  /** What the permission policy kept out of the search (files, never their content). */
  withheld?: string;
}

export function searchFilesTool(options: BuiltinToolOptions) {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return defineTool({
    name: "search_files",
    description:
      "Search workspace files for a literal string (not a regex), optionally only files matching a glob like **/*.ts. Returns path:line: text for each matching line. No side effects.",
    effect: "read",
    enumerates: true,
    input: z
      .object({
        query: boundedString(INPUT_LIMITS.searchQueryChars).min(1),
        path: Directory,
        glob: boundedString(INPUT_LIMITS.globChars).optional(),
        caseSensitive: z.boolean().default(true),
        maxResults: z.number().int().positive().max(5000).default(200),
      })
      .strict(),
    scope: (args) => ({ paths: [enumerated(args.path, "**")] }),
    async run(args, context): Promise<SearchResult> {
      const real = await context.workspace.resolve(args.path);
      const base = context.workspace.relativePath(real);
      const { entries } = await walkFiles(context.workspace, real, { recursive: true, limit: MAX_WALKED });
      const needle = args.caseSensitive ? args.query : args.query.toLowerCase();
      const matches: SearchMatch[] = [];
      for (const entry of entries) {
        if (entry.kind !== "file" || (args.glob && !pathMatches(args.glob, entry.path))) continue;
        // Before the file is opened: what is withheld must not depend on what it holds.
        if (!context.screen.admits(under(base, entry.path))) continue;
        const text = await readSearched(context.workspace, join(real, entry.path), maxBytes);
        if (text === undefined) continue;
        const lines = text.split("\n");
        for (let index = 0; index < lines.length && matches.length < args.maxResults; index += 1) {
          const line = lines[index] as string;
          if ((args.caseSensitive ? line : line.toLowerCase()).includes(needle)) {
            matches.push({
              path: under(args.path, entry.path),
              line: index + 1,
              text: line.length > 500 ? `${line.slice(0, 500)}…` : line,
            });
          }
        }
        if (matches.length >= args.maxResults) break;
      }
      const withheld = context.screen.note("files");
      return withheld ? { matches, withheld } : { matches };
    },
    render: ({ matches, withheld }) =>
      [...matches.map((match) => `${match.path}:${match.line}: ${match.text}`), ...(withheld ? [`(${withheld})`] : [])].join("\n"),
  });
}

/**
 * A file's text for a search, through a checked handle; undefined for one
 * over the size limit, gone, or swapped for a symlink since the walk saw it
 * (such a file is skipped, not a reason to fail the whole search).
 */
async function readSearched(workspace: Workspace, path: string, maxBytes: number): Promise<string | undefined> {
  try {
    return await readTextFile(workspace, path, maxBytes);
  } catch (error) {
    if (ReinError.isInstance(error) || (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
