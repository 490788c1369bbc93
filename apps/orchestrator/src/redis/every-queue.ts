import type { Queue } from "bullmq";
import { BuildId } from "@rein/contracts";
import type { ReinRuntime } from "@rein/runtime";

/** The role queues and the step queue of every build a role process was started with (`<p>:builds`), for views and metrics. */
export async function everyQueue(runtime: Pick<ReinRuntime, "queues" | "redis" | "keys">): Promise<Queue[]> {
  const builds = await runtime.redis.smembers(runtime.keys.builds());
  const buildQueues = builds
    .filter((build) => BuildId.safeParse(build).success)
    .sort()
    .map((build) => runtime.queues.stepOf(build));
  return [...runtime.queues.all(), ...buildQueues];
}
