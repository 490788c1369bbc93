import type { ModelProvider } from "@rein/models";
import type { ReinRuntime } from "@rein/runtime";
import { until } from "@rein/contracts/testing";
import { type RunningRoles, startRoles } from "@rein/controller";
import type { Harness } from "./harness.ts";

/**
 * Counts calls of something a step makes (a tool's run, a model call) and
 * makes the first `hangs` of them never end, as the calls of a worker killed
 * with SIGKILL never do; `release` rejects them at the end of the test.
 */
export class HungCalls {
  calls = 0;
  readonly #hung: (() => void)[] = [];

  constructor(private readonly hangs: number) {}

  /** Called where the call starts; returns at once past the first `hangs`. */
  async enter(): Promise<void> {
    this.calls += 1;
    if (this.calls > this.hangs) return;
    await new Promise<never>((_resolve, reject) =>
      this.#hung.push(() => reject(new Error("the killed worker's call, released at the end of the test"))),
    );
  }

  release(): void {
    for (const unblock of this.#hung.splice(0)) unblock();
  }
}

/** A model provider whose calls go through `hung` first. */
export function hangingProvider(provider: ModelProvider, hung: HungCalls): ModelProvider {
  return {
    name: provider.name,
    kind: provider.kind,
    model: provider.model,
    complete: async (...args: Parameters<ModelProvider["complete"]>) => {
      await hung.enter();
      return provider.complete(...args);
    },
  };
}

/** Kills a role the way SIGKILL does, as far as Redis can tell: its locks are no longer renewed and its jobs never finish. */
export async function killRole(role: RunningRoles): Promise<void> {
  await Promise.all(role.workers.map((worker) => worker.close(true)));
}

/**
 * Step workers a test kills mid-call and replaces, each a step role on the
 * harness's step runtime as a separate worker process would be.
 */
export class LostStepWorkers {
  readonly stepRuntime: ReinRuntime;
  readonly #started: RunningRoles[] = [];

  constructor(
    private readonly harness: Harness,
    private readonly worker: ModelProvider = harness.worker,
  ) {
    this.stepRuntime = harness.roleRuntimes[2] as ReinRuntime;
  }

  /** Kills the harness's own step role: from here on, only the roles this starts take step jobs. */
  killHarnessRole(): Promise<void> {
    return killRole(this.harness.roles[2] as RunningRoles);
  }

  /**
   * `times` times, starts a step role and kills it once `hung` has seen one
   * more call (a call that hangs in it); then starts one that is left to
   * finish the step.
   */
  async killEachInCall(hung: HungCalls, times: number): Promise<void> {
    for (let killed = 1; killed <= times; killed += 1) {
      const role = this.#start();
      await until(`call ${killed} on a step worker`, () => hung.calls >= killed, 90_000);
      await killRole(role);
    }
    this.#start();
  }

  /** Closes every step role this started. */
  async close(): Promise<void> {
    for (const role of this.#started.splice(0)) await role.close(0);
  }

  #start(): RunningRoles {
    const role = startRoles(this.stepRuntime, {
      roles: ["step"],
      packetPublicKey: this.harness.packetPublicKey,
      executor: this.harness.tooling.executor,
      providers: { worker: this.worker },
    });
    this.#started.push(role);
    return role;
  }
}
