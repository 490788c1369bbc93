import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Goal } from "@rein/contracts";
import { z } from "@rein/tools";
import { EXAMPLES_DIR } from "../examples/load-example.ts";

const ExampleGoalText = z.object({ text: z.string().optional() });

/**
 * The example a recorded goal came from, so its tools and seed can be
 * installed for a replay: by the `example` the CLI wrote into its metadata,
 * else by an example whose goal.json has the same text.
 */
export function exampleOf(goal: Pick<Goal, "metadata" | "text">, examplesDir = EXAMPLES_DIR): string | undefined {
  const named = goal.metadata?.example;
  if (named && /^[a-z0-9-]+$/.test(named) && existsSync(join(examplesDir, named, "goal.json"))) return named;
  for (const name of readdirSync(examplesDir)) {
    const file = join(examplesDir, name, "goal.json");
    if (!existsSync(file)) continue;
    const example = ExampleGoalText.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (example.success && example.data.text?.trim() === goal.text.trim()) return name;
  }
  return undefined;
}
