import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ReinError } from "@rein/contracts";
import { compileJsonSchema, type SchemaCheck } from "./json-schema-check.ts";
import { PluginManifest, type PluginTool } from "./plugin-manifest.ts";

/** A manifest read, validated, and its schemas compiled. */
export interface LoadedPlugin {
  dir: string;
  manifest: PluginManifest;
  checks: ReadonlyMap<string, { input: SchemaCheck; output?: SchemaCheck }>;
}

/**
 * Reads `<dir>/plugin.json`, validates it against the manifest schema, and
 * compiles each tool's JSON Schemas. Every problem is a `config_invalid`
 * error that names the file and the field.
 */
export async function loadPlugin(dir: string): Promise<LoadedPlugin> {
  const absolute = resolve(dir);
  const file = join(absolute, "plugin.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ReinError(
      "config_invalid",
      `plugin ${dir}: cannot read ${file} (${(error as Error).message}); expected a directory with a plugin.json`,
      { cause: error },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ReinError("config_invalid", `${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = PluginManifest.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new ReinError(
      "config_invalid",
      `${file} is not a valid plugin manifest: ${problems.join("; ")} (docs/plugins.md lists every field)`,
    );
  }
  const manifest = parsed.data;
  const checks = new Map<string, { input: SchemaCheck; output?: SchemaCheck }>();
  for (const [index, tool] of manifest.tools.entries()) checks.set(tool.name, await compileTool(tool, `${file}: tools.${index}`));
  return { dir: absolute, manifest, checks };
}

async function compileTool(tool: PluginTool, where: string): Promise<{ input: SchemaCheck; output?: SchemaCheck }> {
  const input = await compileJsonSchema(tool.input_schema, `${where}.input_schema`);
  const output = tool.output_schema ? await compileJsonSchema(tool.output_schema, `${where}.output_schema`) : undefined;
  if (tool.example) {
    const issues = input(tool.example);
    if (issues.length > 0) {
      throw new ReinError(
        "config_invalid",
        `${where}.example does not match its input_schema: ${issues.map((issue) => `${issue.path.join(".") || "(root)"} ${issue.message}`).join("; ")}`,
      );
    }
  }
  return { input, output };
}
