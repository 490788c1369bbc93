import { PacketBody, ReinError } from "@rein/contracts";
import { ApprovalVerifier, generateKeyPair, generatePacketKeys, PacketSigner } from "@rein/signing";
import { ReplayProvider, roleMaxTokens } from "@rein/models";
import { CheckpointStore, type ReinRuntime } from "@rein/runtime";
import { type AnyTool, Workspace } from "@rein/tools";
import { isTraceEventOf, type TraceEventOf, type TypedTraceEvent } from "@rein/trace";
import { runStepLoop } from "@rein/workers";
import type { TraceBundle } from "../trace/trace-bundle.ts";
import { compareTraces } from "./compare-traces.ts";
import { observationIdTranslator } from "./observation-ids.ts";
import { buildTooling, prepareWorkspace } from "@rein/controller";
import { RecordedOutputs } from "./recorded-outputs.ts";
import { artifactsOf, type ReplayReport, stubbedCallsOf } from "./replay-run.ts";
import { DEFAULT_TOOL_MODE, replayToolSet, type ToolMode } from "./replay-tools.ts";

export interface StepReplayOptions {
  /** @defaultValue DEFAULT_TOOL_MODE ("stub"): every call answered from the recording */
  mode?: ToolMode;
  allowExternal?: boolean;
  tools?: readonly AnyTool[];
  /** The directory the recorded run started from (the example's seed), copied into the fresh workspace. */
  seedDir?: string;
}

/**
 * Re-runs one step in isolation: its recorded packet, re-signed with a
 * throwaway key, through the real worker loop and executor, in a fresh
 * workspace seeded as the run's was, with the step's recorded model
 * outputs. Nothing else of the run is replayed, so what the step did can be
 * judged apart from everything before it.
 */
export async function replayStep(
  scratch: ReinRuntime,
  bundle: TraceBundle,
  stepId: string,
  options: StepReplayOptions,
): Promise<ReplayReport> {
  const dispatched = bundle.events.find(
    (event): event is TraceEventOf<"step.dispatched"> => isTraceEventOf(event, "step.dispatched") && event.stepId === stepId,
  );
  if (!dispatched)
    throw new ReinError(
      "not_found",
      `run ${bundle.runId} has no recorded packet for step ${stepId}; expected a step.dispatched event carrying it`,
    );
  const recordedBody = PacketBody.parse(dispatched.payload.packet);
  const now = new Date();
  const body = {
    ...recordedBody,
    resume: undefined,
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
  };
  const packet = new PacketSigner(generatePacketKeys().privateKey).sign(body);

  if (options.seedDir)
    await prepareWorkspace({ source: options.seedDir, workspaceRoot: scratch.config.workspaceRoot, runId: bundle.runId });
  const workspace = await Workspace.forRun(scratch.config.workspaceRoot, bundle.runId);

  const ownEvents = (events: readonly TypedTraceEvent[]) =>
    events.filter((event) => event.stepId === stepId && event.seq >= dispatched.seq);
  const recordedEvents = ownEvents(bundle.events);
  const recorded = new RecordedOutputs(bundle.events, bundle.artifacts);
  const mode = options.mode ?? DEFAULT_TOOL_MODE;
  const { tools, stubbed } = await replayToolSet(scratch.config, options.tools ?? [], recorded, {
    mode,
    allowExternal: options.allowExternal ?? false,
  });
  const model = ReplayProvider.fromTrace(recordedEvents, { translate: observationIdTranslator(bundle.events, scratch, bundle.runId) });
  // Nobody decides approvals in a replayed step: a key nobody holds the private half of.
  const tooling = await buildTooling(scratch, tools, new ApprovalVerifier(generateKeyPair().publicKey));
  const result = await runStepLoop(
    packet,
    {
      provider: model,
      executor: tooling.executor,
      trace: scratch.trace,
      workspace,
      checkpoints: new CheckpointStore(scratch.redis, scratch.keys),
      maxDepth: scratch.config.packets.maxDepth,
      maxTokensPerCall: roleMaxTokens(scratch.config.providers, scratch.config.roles.worker),
    },
    new AbortController().signal,
  ).finally(() => tooling.close());
  const replayEvents = await scratch.trace.read(bundle.runId);
  const comparison = compareTraces(
    { runId: bundle.runId, events: recordedEvents, outputs: recorded },
    {
      runId: bundle.runId,
      events: replayEvents.filter((event) => event.stepId === stepId),
      outputs: new RecordedOutputs(replayEvents, await artifactsOf(scratch, replayEvents)),
    },
  );
  const finished = recordedEvents.find((event) => isTraceEventOf(event, "step.finished"));
  const recordedStatus = finished?.payload.status ?? null;
  return {
    runId: bundle.runId,
    identical: comparison.identical && recordedStatus === result.status,
    comparison,
    status: { recorded: recordedStatus, replay: result.status },
    stubbed: mode === "stub" ? ["(all)"] : stubbed,
    stubbedCalls: stubbedCallsOf(replayEvents, new Set(mode === "stub" ? tools.map((tool) => tool.name) : stubbed)),
    // Nobody decides in a replayed step: a call that needs approval ends it.
    waitingApproval:
      result.suspension?.kind === "approval" ? { approvalId: result.suspension.approvalId, stepId, tool: result.suspension.tool } : null,
    unusedResponses: model.unused(),
  };
}
