import type { AnyTool } from "../define-tool.ts";
import type { BuiltinToolOptions } from "./builtin-options.ts";
import { editFileTool, readFileTool, writeFileTool } from "./file-tools.ts";
import { httpRequestTool } from "./http-request.ts";
import { listFilesTool, searchFilesTool } from "./list-search-tools.ts";
import { runCommandTool } from "./run-command.ts";

export const BUILTIN_TOOL_NAMES = [
  "read_file",
  "write_file",
  "edit_file",
  "list_files",
  "search_files",
  "run_command",
  "http_request",
] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** The built-in tools, every one confined to the run's workspace. */
export function builtinTools(options: BuiltinToolOptions = {}): AnyTool[] {
  return [
    readFileTool(options),
    writeFileTool(),
    editFileTool(options),
    listFilesTool(),
    searchFilesTool(options),
    runCommandTool(options),
    httpRequestTool(options),
  ];
}
