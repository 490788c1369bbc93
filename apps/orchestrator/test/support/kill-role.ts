import type { RunningRoles } from "../../src/roles/start-roles.ts";

/**
 * Kills a role's process the way SIGKILL does, as far as Redis can tell: it
 * stops renewing its jobs' locks and never finishes them.
 */
export async function killRole(role: RunningRoles): Promise<void> {
  await Promise.all(role.workers.map((worker) => worker.close(true)));
}
