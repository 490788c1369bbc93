import { loadExample } from "../examples/load-example.ts";
import {
  intakeEvents,
  replyToRun,
  submitGoal,
  CONTROLLER_SEEN_SECONDS,
  controllerSeenRecently,
  unavailableMcpServers,
  knownToolNames,
} from "@rein/controller";
import { withContext } from "./cli-context.ts";
import type { CommandHandler } from "./command-spec.ts";
import type { CANCEL, REPLY, SUBMIT } from "./command-specs.ts";
import { goalFromCli, workspaceFlags } from "./goal-input.ts";
import { packetSigningKeys } from "./packet-signing-keys.ts";
import { err, out } from "./output.ts";

export const submitCommand: CommandHandler<typeof SUBMIT> = ({ goal: goalText }, flags) =>
  withContext(flags, async (context) => {
    const example = flags.example === undefined ? undefined : await loadExample(flags.example);
    const goal = goalFromCli(goalText, example, flags.tools, flags.kind);
    // Where the packet-signing key is (the controller's machine), the run is taken in here, as rein serve does.
    const { privateKey } = packetSigningKeys(context.config, { create: false });
    const { runId } = await submitGoal(context.runtime, goal, {
      knownTools: knownToolNames(context.config, example?.tools ?? []),
      unavailableMcp: await unavailableMcpServers(context.runtime),
      events: privateKey ? intakeEvents(context.runtime, privateKey) : undefined,
      ...workspaceFlags(flags, example),
    });
    out(runId);
    if (!(await controllerSeenRecently(context.runtime))) {
      err(
        `rein submit: warning: no controller has been seen on prefix ${context.config.prefix} in the last ${CONTROLLER_SEEN_SECONDS} s; ` +
          `the run waits until one starts (rein serve, or rein worker --role control, with the same Redis and prefix)`,
      );
    }
    return 0;
  });

export const cancelCommand: CommandHandler<typeof CANCEL> = ({ runId }, flags) =>
  withContext(flags, async (context) => {
    await context.runtime.runs.require(runId);
    await context.runtime.queues.sendControl({
      type: "run.cancel",
      eventId: `cancel-${runId}`,
      runId,
      reason: flags.reason ?? `cancelled by ${process.env.USER ?? "a person"}`,
    });
    out(`cancel requested for ${runId}`);
    return 0;
  });

export const replyCommand: CommandHandler<typeof REPLY> = ({ runId, instruction }, flags) =>
  withContext(flags, async (context) => {
    await replyToRun(context.runtime, runId, instruction);
    out(`reply sent to ${runId}`);
    return 0;
  });
