import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import { ReinError } from "@rein/contracts";
import { escapeGlob } from "@rein/guard";
import { defineTool } from "../define-tool.ts";
import type { Workspace } from "../workspace.ts";
import { type BuiltinToolOptions, DEFAULT_MAX_FILE_BYTES } from "./builtin-options.ts";
import { boundedPath, boundedString, INPUT_LIMITS } from "./input-limits.ts";

const WorkspacePath = boundedPath().describe(
  `a path relative to the workspace root, e.g. src/index.ts; at most ${INPUT_LIMITS.pathChars} characters and ${INPUT_LIMITS.pathComponents} components`,
);
const FileText = boundedString(INPUT_LIMITS.fileContentChars);

/** A workspace file's text, read through one checked handle (Workspace.openFile). */
export async function readTextFile(workspace: Workspace, path: string, maxBytes: number): Promise<string> {
  const handle = await workspace.openFile(path, "read");
  try {
    return await readWhole(handle, path, maxBytes);
  } finally {
    await handle.close();
  }
}

/** The handle's file from its start, refused past `maxBytes` however much it grows while it is read. */
async function readWhole(handle: FileHandle, path: string, maxBytes: number): Promise<string> {
  const tooBig = (size: number) => new ReinError("tool_failed", `${path} is ${size} bytes, over the ${maxBytes}-byte read limit`);
  const { size } = await handle.stat();
  if (size > maxBytes) throw tooBig(size);
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(Math.max(size - length, 64 * 1024), maxBytes + 1 - length));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, length);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    length += bytesRead;
    if (length > maxBytes) throw tooBig(length);
  }
  return Buffer.concat(chunks, length).toString("utf8");
}

/** Replaces the handle's whole file with `text`. */
async function writeWhole(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  await handle.truncate(0);
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
  }
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
      const handle = await context.workspace.openFile(args.path, "write");
      try {
        await writeWhole(handle, args.content);
      } finally {
        await handle.close();
      }
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
      // Read and rewritten through one handle: the file edited is the file read.
      const handle = await context.workspace.openFile(args.path, "update");
      try {
        return await editThrough(handle, args, maxBytes);
      } finally {
        await handle.close();
      }
    },
    render: (output) => `Replaced ${output.replacements} occurrence${output.replacements === 1 ? "" : "s"} in ${output.path}.`,
  });
}

async function editThrough(
  handle: FileHandle,
  args: { path: string; oldString: string; newString: string; replaceAll: boolean },
  maxBytes: number,
): Promise<{ path: string; replacements: number }> {
  const text = await readWhole(handle, args.path, maxBytes);
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
  await writeWhole(handle, edited);
  return { path: args.path, replacements: args.replaceAll ? occurrences : 1 };
}
