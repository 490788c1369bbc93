import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Goal } from "@rein/core";
import { EXAMPLES_DIR } from "../examples/load-example.ts";

/**
 * The example a recorded goal came from, so its tools can be installed for a
 * replay: by its workspace seed lying under the examples folder, else by an
 * example whose goal.json has the same text.
 */
export function exampleOf(goal: Pick<Goal, "workspaceSeed" | "text">, examplesDir = EXAMPLES_DIR): string | undefined {
  if (goal.workspaceSeed) {
    const path = relative(examplesDir, goal.workspaceSeed);
    if (!path.startsWith("..") && path !== "") return path.split(sep)[0];
  }
  for (const name of readdirSync(examplesDir)) {
    const file = join(examplesDir, name, "goal.json");
    if (!existsSync(file)) continue;
    const text = (JSON.parse(readFileSync(file, "utf8")) as { text?: string }).text;
    if (text?.trim() === goal.text.trim()) return name;
  }
  return undefined;
}
