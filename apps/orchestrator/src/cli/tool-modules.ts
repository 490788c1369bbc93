import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, ReinError } from "@rein/contracts";
import type { ReinConfig } from "@rein/runtime";
import { type AnyTool, toolsExportOf } from "@rein/tools";
import { importTypeScript } from "../examples/import-typescript.ts";

/** The tools this process's step worker carries for `rein run` and `rein replay`: an example's, then config `toolModules`'. */
export async function localStepTools(config: Pick<ReinConfig, "toolModules">, example?: { tools: AnyTool[] }): Promise<AnyTool[]> {
  return [...(example?.tools ?? []), ...(await loadToolModules(config.toolModules))];
}

/**
 * The tools of `rein worker --tools` and config `toolModules`: each module's
 * `tools` array when it exports one, else every export made with
 * `defineTool`. A module that is missing, fails to load or exports no tool
 * is a `config_invalid` error naming it, so a worker never starts without
 * the tools it was told to carry.
 */
export async function loadToolModules(files: readonly string[], cwd = process.cwd()): Promise<AnyTool[]> {
  const tools: AnyTool[] = [];
  for (const file of new Set(files)) {
    const path = resolve(cwd, file);
    if (!existsSync(path))
      throw new ReinError("config_invalid", `tool module ${file}: no such file (${path}); expected a module of defineTool tools`);
    const module = await importTypeScript(path).catch((error: unknown) => {
      throw new ReinError(
        "config_invalid",
        `tool module ${file} failed to load: ${errorMessage(error)}; expected a module of defineTool tools`,
        {
          cause: error,
        },
      );
    });
    tools.push(...toolsOf(module as Record<string, unknown>, file));
  }
  const names = tools.map((tool) => tool.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice)
    throw new ReinError(
      "config_invalid",
      `tool ${twice} is defined twice across the tool modules ${files.join(", ")}; expected each name once`,
    );
  return tools;
}

function toolsOf(module: Record<string, unknown>, file: string): AnyTool[] {
  if ("tools" in module) return toolsExportOf(module, file);
  const defined = Object.values(module).filter(looksDefined);
  if (defined.length === 0) {
    throw new ReinError(
      "config_invalid",
      `tool module ${file} exports no defineTool tools (exports: ${Object.keys(module).join(", ") || "none"}); expected \`export const myTool = defineTool({...})\` or \`export const tools = [...]\``,
    );
  }
  return toolsExportOf({ tools: defined }, file);
}

/** What defineTool returns has a name, an input schema and a run function; toolsExportOf checks the rest. */
function looksDefined(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.name === "string" && typeof candidate.run === "function" && typeof candidate.input === "object";
}
