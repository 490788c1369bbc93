import type { ReinRuntime } from "@rein/runtime";
import { z } from "@rein/tools";
import { PROCESS_SEEN_MS, publishProcessStatus, readProcessStatus } from "../status-board/process-status-board.ts";

const PublishedWorker = z.object({
  at: z.number(),
  /** host:pid, and the roles when one process started several sets of them. */
  process: z.string(),
  roles: z.array(z.string()),
  /** Jobs each role's consumer takes at once; null when the config's per-queue default applies. */
  concurrency: z.number().int().nullable(),
  /** The build it announces (config `buildId`); absent from a process without one, or from before builds. */
  build: z.string().optional(),
  /** A step worker's tools from the user's modules (`toolModules`, `--tools`): goals may grant them while it beats. */
  tools: z.array(z.string()).optional(),
});
export type PublishedWorker = z.infer<typeof PublishedWorker>;

const WORKER_BOARD = { name: "worker-status", what: "worker status" };

/**
 * Every role process says, every few seconds, which roles it consumes and
 * how many jobs at once: the queues view lists the workers seen recently
 * and when each last beat. Removed when the process stops its roles.
 */
export function publishWorkerStatus(
  runtime: ReinRuntime,
  worker: { roles: readonly string[]; concurrency?: number; build?: string; tools?: readonly string[] },
): () => Promise<void> {
  return publishProcessStatus(
    runtime,
    WORKER_BOARD,
    () => ({
      roles: [...worker.roles],
      concurrency: worker.concurrency ?? null,
      ...(worker.build ? { build: worker.build } : {}),
      ...(worker.tools?.length ? { tools: [...worker.tools] } : {}),
    }),
    worker.build === undefined ? worker.roles.join("+") : `${worker.roles.join("+")}@${worker.build}`,
  );
}

/** The workers that beat recently on this prefix, by process. */
export async function readWorkerStatus(runtime: ReinRuntime): Promise<PublishedWorker[]> {
  return readProcessStatus(runtime, WORKER_BOARD, PublishedWorker);
}

/** How recently a controller must have beaten to count as running, as the queues view counts every role process. */
export const CONTROLLER_SEEN_SECONDS = PROCESS_SEEN_MS / 1000;

/** Whether a process running the control role beat on this prefix within `CONTROLLER_SEEN_SECONDS`: `rein submit` warns a person when none did. */
export async function controllerSeenRecently(runtime: ReinRuntime): Promise<boolean> {
  return (await readWorkerStatus(runtime)).some((worker) => worker.roles.includes("control"));
}

/** The tools the step workers beating on this prefix carry from the user's modules. */
export async function announcedStepTools(runtime: ReinRuntime): Promise<Set<string>> {
  const workers = await readWorkerStatus(runtime);
  return new Set(workers.filter((worker) => worker.roles.includes("step")).flatMap((worker) => worker.tools ?? []));
}
