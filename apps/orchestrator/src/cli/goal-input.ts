import { type GoalInput, type GoalKind, ReinError } from "@rein/contracts";
import type { LoadedExample } from "../examples/load-example.ts";

export const DEFAULT_GOAL_TOOLS = ["read_file", "write_file", "edit_file", "list_files", "search_files", "run_command"];

/** The goal a CLI invocation describes: an example's goal, its text (and `--kind`) replaced when one is given. */
export function goalFromCli(
  text: string | undefined,
  example: LoadedExample | undefined,
  tools: string | undefined,
  kind?: GoalKind,
): GoalInput {
  const base: GoalInput = example ? structuredClone(example.goal) : { text: "" };
  if (text !== undefined) base.text = text;
  if (kind !== undefined) base.kind = kind;
  if (example) base.metadata = { ...base.metadata, example: example.name };
  if (tools !== undefined)
    base.tools = tools
      .split(",")
      .filter(Boolean)
      .map((name) => ({ name: name.trim() }));
  else if (!example) base.tools = DEFAULT_GOAL_TOOLS.map((name) => ({ name }));
  return base;
}

/** The directory a CLI run works on: `--workspace DIR`, else the example's seed. */
export function workspaceFlags(
  flags: { workspace?: string; "include-dirty"?: boolean },
  example: LoadedExample | undefined,
): { workspaceDir?: string; includeDirty: boolean } {
  const dir = flags.workspace ?? example?.seedDir;
  if (flags["include-dirty"] && flags.workspace === undefined)
    throw new ReinError("goal_invalid", "--include-dirty goes with --workspace DIR");
  return { ...(dir ? { workspaceDir: dir } : {}), includeDirty: Boolean(flags["include-dirty"]) };
}
