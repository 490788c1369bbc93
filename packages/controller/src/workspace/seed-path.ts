import { realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { ReinError } from "@rein/contracts";

/**
 * The directory of a named seed under `seedsRoot`. The name was checked for
 * shape by the Goal schema; here its real path (symlinks followed) must stay
 * under the real seeds root, so a seed that is a symlink to elsewhere is
 * refused too.
 */
export async function resolveSeed(seedsRoot: string | undefined, name: string): Promise<string> {
  if (!seedsRoot) {
    throw new ReinError(
      "goal_invalid",
      `goal.workspace names seed "${name}", but this deployment has no seedsRoot; expected a goal without workspace, or a seedsRoot in the config`,
    );
  }
  const root = await realpath(seedsRoot).catch(() => {
    throw new ReinError("config_invalid", `config key seedsRoot: ${seedsRoot} does not exist; expected a directory of seeds`);
  });
  const real = await realpath(join(root, name)).catch(() => undefined);
  if (!real || !(await stat(real)).isDirectory()) {
    throw new ReinError(
      "goal_invalid",
      `goal.workspace: no seed "${name}" under the deployment's seedsRoot; expected the name of one of its directories`,
    );
  }
  if (real === root || !real.startsWith(root + sep)) {
    throw new ReinError(
      "goal_invalid",
      `goal.workspace: seed "${name}" leads outside the deployment's seedsRoot; expected a directory inside it`,
    );
  }
  return real;
}
