import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Goal, type GoalInput, PolicyRule, ReinError } from "@rein/contracts";
import { PluginEntry } from "@rein/plugins";
import type { ReinConfigInput } from "@rein/runtime";
import { type AnyTool, toolsExportOf, z } from "@rein/tools";
import { resolveSeed } from "@rein/controller";
import { importTypeScript } from "./import-typescript.ts";

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The examples folder: the repository's in a checkout (src/ and dist/ alike),
 * the copy packed beside dist/ in an installed package.
 */
export const EXAMPLES_DIR = existsSync(join(packageDir, "../../pnpm-workspace.yaml"))
  ? resolve(packageDir, "../../examples")
  : join(packageDir, "examples");

export interface LoadedExample {
  name: string;
  dir: string;
  /** The example's goal, without its workspace: that is `seedDir`. */
  goal: GoalInput;
  /** The directory the example's runs start from, if any. */
  seedDir?: string;
  /** The scripted models for every role, used when no real provider is configured. */
  scriptPath: string;
  /** Tools the example adds to the built-ins. */
  tools: AnyTool[];
  /**
   * The deployment side the example needs (its `rein.config.json`): what a
   * goal cannot grant itself, such as allowing `node` without a person.
   */
  config: ReinConfigInput;
}

/** What an example may set on the deployment's side; everything else stays the running config's. */
const ExampleConfig = z.object({ policy: z.array(PolicyRule).default([]), plugins: z.array(PluginEntry).optional() }).strict();

/**
 * An example is a folder with `goal.json` (a Goal whose `workspace` names a
 * seed in the example's own folder), `script.json` (the offline models) and
 * optionally `tools.ts` exporting `tools: AnyTool[]` and `rein.config.json`
 * with the deployment policy and plugins the example runs under (a goal's own rules can
 * only tighten policy, so what the example needs allowed is allowed there).
 */
export async function loadExample(name: string, examplesDir = EXAMPLES_DIR): Promise<LoadedExample> {
  const dir = join(examplesDir, name);
  const goalFile = join(dir, "goal.json");
  if (!/^[a-z0-9-]+$/.test(name) || !existsSync(goalFile)) {
    throw new ReinError("not_found", `no example "${name}"; expected a folder with goal.json under ${examplesDir}`);
  }
  const parsedGoal = Goal.safeParse(JSON.parse(readFileSync(goalFile, "utf8")));
  if (!parsedGoal.success) {
    const issue = parsedGoal.error.issues[0];
    throw new ReinError("config_invalid", `${goalFile}: ${issue?.path.join(".") || "(root)"}: ${issue?.message}; expected a goal`);
  }
  const { workspace, ...goal } = parsedGoal.data;
  const seedDir = workspace ? await resolveSeed(dir, workspace) : undefined;
  const toolsFile = join(dir, "tools.ts");
  const tools = existsSync(toolsFile) ? toolsExportOf(await importTypeScript(toolsFile), toolsFile) : [];
  return { name, dir, goal, seedDir, scriptPath: join(dir, "script.json"), tools, config: exampleConfig(dir) };
}

/** The example's policy and plugins; a plugin's path is relative to the example's folder. */
function exampleConfig(dir: string): ReinConfigInput {
  const file = join(dir, "rein.config.json");
  if (!existsSync(file)) return {};
  const parsed = ExampleConfig.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReinError(
      "config_invalid",
      `${file}: ${issue?.path.join(".") || "(root)"}: ${issue?.message}; an example's config may only set policy and plugins`,
    );
  }
  const { policy, plugins } = parsed.data;
  return plugins ? { policy, plugins: plugins.map((plugin) => ({ ...plugin, path: resolve(dir, plugin.path) })) } : { policy };
}
