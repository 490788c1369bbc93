import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { ReinError } from "../../errors.ts";
import { escapeGlob } from "../../policy/glob-literal.ts";
import { defineTool } from "../define-tool.ts";
import type { Workspace } from "../workspace.ts";
import { type BuiltinToolOptions, DEFAULT_MAX_FILE_BYTES } from "./builtin-options.ts";
import { boundedPath, boundedString, INPUT_LIMITS } from "./input-limits.ts";

const WorkspacePath = boundedPath().describe(
  `a path relative to the workspace root, e.g. src/index.ts; at most ${INPUT_LIMITS.pathChars} characters and ${INPUT_LIMITS.pathComponents} components`,
);
const FileText = boundedString(INPUT_LIMITS.fileContentChars);

export async function readTextFile(workspace: Workspace, path: string, maxBytes: number): Promise<string> {
  const real = await workspace.resolve(path);
  const info = await stat(real);
  if (!info.isFile()) {
    throw new ReinError("tool_failed", `${path} is not a regular file; expected a file path (use list_files for directories)`);
  }
  if (info.size > maxBytes) {
    throw new ReinError("tool_failed", `${path} is ${info.size} bytes, over the ${maxBytes}-byte read limit`);
  }
  return readFile(real, "utf8");
}

export function readFileTool(options: BuiltinToolOptions) {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return defineTool({
    name: "read_file",
    description:
      "Read a UTF-8 text file in the workspace. Optionally give startLine (1-based) and lineCount to read part of it. No side effects.",
    effect: "read",
    input: z
      .object({
        path: WorkspacePath,
        startLine: z.number().int().positive().optional(),
        lineCount: z.number().int().positive().optional(),
      })
      .strict(),
    scope: (args) => ({ paths: [escapeGlob(args.path)] }),
    async run(args, context) {
      const text = await readTextFile(context.workspace, args.path, maxBytes);
      if (args.startLine === undefined && args.lineCount === undefined) return text;
      const lines = text.split("\n");
      const start = (args.startLine ?? 1) - 1;
      return lines.slice(start, args.lineCount === undefined ? undefined : start + args.lineCount).join("\n");
    },
  });
}

export function writeFileTool() {
  return defineTool({
    name: "write_file",
    description: "Create or overwrite a text file in the workspace with the given content; parent directories are created.",
    effect: "write",
    // Writing the same content to the same path again leaves the same file: safe to redo after a crash.
    idempotent: true,
    input: z.object({ path: WorkspacePath, content: FileText }).strict(),
    output: z.object({ path: z.string(), bytes: z.number().int() }),
    scope: (args) => ({ paths: [escapeGlob(args.path)] }),
    async run(args, context) {
      const real = await context.workspace.resolve(args.path);
      await mkdir(dirname(real), { recursive: true });
      await writeFile(real, args.content, "utf8");
      return { path: args.path, bytes: Buffer.byteLength(args.content) };
    },
    render: (output) => `Wrote ${output.bytes} bytes to ${output.path}.`,
  });
}

export function editFileTool(options: BuiltinToolOptions) {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return defineTool({
    name: "edit_file",
    description:
      "Replace an exact string in a workspace file. oldString must occur exactly once (include surrounding lines to make it unique) unless replaceAll is true.",
    effect: "write",
    input: z
      .object({
        path: WorkspacePath,
        oldString: FileText.min(1),
        newString: FileText,
        replaceAll: z.boolean().default(false),
      })
      .strict(),
    output: z.object({ path: z.string(), replacements: z.number().int().positive() }),
    scope: (args) => ({ paths: [escapeGlob(args.path)] }),
    async run(args, context) {
      const text = await readTextFile(context.workspace, args.path, maxBytes);
      const occurrences = text.split(args.oldString).length - 1;
      if (occurrences === 0) {
        throw new ReinError(
          "tool_failed",
          `oldString was not found in ${args.path}; read the file and copy the exact text to replace, including whitespace`,
        );
      }
      if (occurrences > 1 && !args.replaceAll) {
        throw new ReinError(
          "tool_failed",
          `oldString occurs ${occurrences} times in ${args.path}, so the edit is ambiguous; include more surrounding text to make it unique, or set replaceAll to true`,
        );
      }
      const edited = args.replaceAll ? text.split(args.oldString).join(args.newString) : text.replace(args.oldString, () => args.newString);
      await writeFile(await context.workspace.resolve(args.path), edited, "utf8");
      return { path: args.path, replacements: args.replaceAll ? occurrences : 1 };
    },
    render: (output) => `Replaced ${output.replacements} occurrence${output.replacements === 1 ? "" : "s"} in ${output.path}.`,
  });
}
