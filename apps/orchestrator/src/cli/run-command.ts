import { errorMessage, newId, ReinError } from "@rein/contracts";
import type { LiveEvent, LiveSubscription, ReinRuntime } from "@rein/runtime";
import { approvalKeys, requireSigner, requireVerifier } from "../approvals/approval-keys.ts";
import { type ApprovalDesk, decideApproval } from "../approvals/decide-approval.ts";
import { loadExample } from "../examples/load-example.ts";
import {
  intakeEvents,
  submitGoal,
  checkModelsAtStart,
  checkRoleProviders,
  claimQueueShards,
  startRoles,
  ROLE_NAMES,
  buildTooling,
} from "@rein/controller";
import { contextFlags, openContext, warnIfUnsandboxed } from "./cli-context.ts";
import type { CommandHandler, ParsedFlags } from "./command-spec.ts";
import type { RUN } from "./command-specs.ts";
import { followRun, printResult } from "./follow-run.ts";
import { goalFromCli, workspaceFlags } from "./goal-input.ts";
import { packetSigningKeys } from "./packet-signing-keys.ts";
import { requireModels, resolveModels } from "./model-resolution.ts";
import { err, out } from "./output.ts";
import { ModelCallTicker } from "./model-call-ticker.ts";
import { localStepTools } from "./tool-modules.ts";
import { describeOrigin, printChanges } from "./workspace-commands.ts";

export { scriptedOverrides } from "./model-resolution.ts";

export const runCommand: CommandHandler<typeof RUN> = async ({ goal: goalText }, flags) => {
  const example = flags.example === undefined ? undefined : await loadExample(flags.example);
  if (!example && goalText === undefined)
    throw new ReinError("goal_invalid", 'expected a goal: rein run "<goal>" or rein run --example bugfix');
  if (flags.approve && flags.deny) throw new ReinError("goal_invalid", "--approve and --deny both given; expected one");
  const models = requireModels(resolveModels({ configFile: flags.config, example }));
  const context = await openContext({
    ...contextFlags(flags),
    embedRedis: true,
    overrides: models.overrides,
  });
  if (context.redis.embedded) err(`started a private redis-server at ${context.redis.url} (stopped on exit)`);
  if (flags.detach && context.redis.embedded) {
    await context.close();
    throw new ReinError(
      "config_invalid",
      "--detach leaves the run to other processes, but this Redis is private to rein run and stops with it; expected a shared one (--redis, REDIS_URL or redisUrl)",
    );
  }
  err(models.source);
  await checkRoleProviders(context.runtime.config)
    .then(() => checkModelsAtStart(context.runtime.config, { roles: ROLE_NAMES, warn: err }))
    .then(() => claimQueueShards(context.runtime))
    .catch(async (error: unknown) => {
      await context.close();
      throw error;
    });
  warnIfUnsandboxed(context.config);
  const keys = packetSigningKeys(context.config, { create: true });
  if (keys.created)
    err(`wrote a packet-signing key pair to ${context.config.keysDir} (used by every rein run and rein serve started here)`);
  const approval = approvalKeys(context.config, { create: true });
  if (approval.created)
    err(`dev mode: wrote an approval key pair to ${context.config.keysDir} (deciders use the private key, step workers the public one)`);
  // The run's own step worker carries config toolModules, as every `rein worker --role step` does.
  const tooling = await buildTooling(
    context.runtime,
    await localStepTools(context.config, example),
    requireVerifier(approval, context.config),
  );
  const desk: ApprovalDesk = { store: tooling.approvals, signer: requireSigner(approval, context.config) };
  const roles = startRoles(context.runtime, {
    roles: ROLE_NAMES,
    packetPrivateKey: keys.privateKey,
    packetPublicKey: keys.publicKey,
    executor: tooling.executor,
  });
  let live: LiveSubscription | undefined;
  try {
    const goal = goalFromCli(goalText, example, flags.tools, flags.kind);
    // Subscribed before the run exists, so no delta is missed; the channel works the same for remote workers.
    const runId = newId("run");
    // On a terminal: streamed model text, and how long each silent model call has been in flight.
    const ticker = process.stdout.isTTY ? new ModelCallTicker((text) => process.stdout.write(text)) : undefined;
    const ticking = ticker ? setInterval(() => ticker.tick(), 1000).unref() : undefined;
    // The follow below hears the same subscription: a tool call is shown when it starts, not after its turn is written.
    const followers: ((event: LiveEvent) => void)[] = [];
    live = await context.runtime.live.subscribe(runId, (event) => {
      ticker?.onLive(event);
      for (const follower of followers) follower(event);
    });
    const { origin } = await submitGoal(context.runtime, goal, {
      knownTools: tooling.registry.names(),
      unavailableMcp: tooling.unavailableMcp,
      runId,
      events: keys.privateKey ? intakeEvents(context.runtime, keys.privateKey) : undefined,
      ...workspaceFlags(flags, example),
    });
    if (origin) out(describeOrigin(origin));
    const interrupt = onInterrupt(context.runtime, runId, Boolean(flags.detach));
    const state = await followRun(context.runtime, runId, {
      signal: interrupt.detached,
      beforeLine: () => ticker?.beforeLine(),
      live: (listener) => followers.push(listener),
      onEvent: async (event) => {
        if (event.kind !== "step.suspended" || (!flags.approve && !flags.deny)) return;
        ticker?.beforeLine();
        if (event.payload.approvalId === undefined) return;
        await decideFromFlags(context.runtime, desk, event.payload.approvalId, flags);
      },
    }).finally(() => {
      clearInterval(ticking);
      ticker?.beforeLine();
      interrupt.remove();
    });
    if (interrupt.detached.aborted) return INTERRUPTED;
    printResult(state);
    if (origin && flags.workspace !== undefined) await printChanges(origin, flags.config);
    if (interrupt.count() > 0) return INTERRUPTED;
    return state.status === "done" ? 0 : 1;
  } finally {
    await live?.close();
    await roles.close();
    await tooling.close();
    await context.close();
  }
};

/** The shell's exit code for a command ended by Ctrl-C. */
const INTERRUPTED = 130;

/**
 * Ctrl-C while following a run: cancel it and keep following until it ends
 * cancelled (a second Ctrl-C leaves at once), or with `--detach` stop
 * following and leave it to the other processes on the prefix. Either way
 * the person is told which.
 */
function onInterrupt(runtime: ReinRuntime, runId: string, detach: boolean): { detached: AbortSignal; count(): number; remove(): void } {
  const detached = new AbortController();
  let count = 0;
  const handler = () => {
    count += 1;
    if (count > 1) {
      err(`rein run: second Ctrl-C; leaving now (run ${runId} may still be cancelling: rein status ${runId})`);
      process.exit(INTERRUPTED);
    }
    if (detach) {
      err(
        `rein run: detached from run ${runId}; it goes on where other processes serve prefix ${runtime.config.prefix} (rein serve, rein worker), not in this one. ` +
          `Follow it with: rein status ${runId}  |  rein trace ${runId}; stop it with: rein cancel ${runId}`,
      );
      detached.abort();
      return;
    }
    err(`rein run: Ctrl-C: cancelling run ${runId} (Ctrl-C again to leave at once; rein run --detach leaves a run running instead)`);
    runtime.queues
      .sendControl({ type: "run.cancel", eventId: `cancel-${runId}`, runId, reason: "cancelled with Ctrl-C in rein run" })
      .catch((error: unknown) =>
        err(`rein run: could not ask for the cancel (${errorMessage(error)}); stop it with: rein cancel ${runId}`),
      );
  };
  process.on("SIGINT", handler);
  return { detached: detached.signal, count: () => count, remove: () => process.off("SIGINT", handler) };
}

async function decideFromFlags(
  runtime: ReinRuntime,
  desk: ApprovalDesk,
  approvalId: string,
  flags: ParsedFlags<typeof RUN>,
): Promise<void> {
  const decision = flags.approve ? "approved" : "denied";
  out(`  (--${flags.approve ? "approve" : "deny"}) deciding approval ${approvalId}: ${decision}`);
  await decideApproval(runtime, desk, approvalId, {
    decision,
    approver: `cli:${process.env.USER ?? "user"}`,
    ...(decision === "denied" ? { reason: flags.reason ?? "denied from the command line" } : { note: "approved from the command line" }),
  });
}
