import { relative, sep } from "node:path";
import type { Goal } from "@rein/core";
import { EXAMPLES_DIR } from "../examples/load-example.ts";

/**
 * The example a recorded goal came from, by its workspace seed lying under
 * the examples folder: its tools must be installed for a replay to call them.
 */
export function exampleOf(goal: Pick<Goal, "workspaceSeed">, examplesDir = EXAMPLES_DIR): string | undefined {
  if (!goal.workspaceSeed) return undefined;
  const path = relative(examplesDir, goal.workspaceSeed);
  if (path.startsWith("..") || path === "") return undefined;
  return path.split(sep)[0];
}
