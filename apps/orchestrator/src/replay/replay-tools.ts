import { ReinError } from "@rein/contracts";
import { createLogger, SecretBindings } from "@rein/guard";
import { loadPlugins } from "@rein/plugins";
import type { ReinConfig } from "@rein/runtime";
import { resolveSandbox } from "@rein/sandbox";
import type { AnyTool, ToolContext } from "@rein/tools";
import { buildRegistry } from "@rein/controller";
import type { RecordedOutputs } from "./recorded-outputs.ts";

/** The call index is the last part of the idempotency key (runId:stepId:attempt:index). */
const indexOf = (context: ToolContext): number => Number(context.idempotencyKey.split(":").at(-1));

/**
 * A tool that answers from the recording instead of running: the same name,
 * schema, scope and effect (so surface, policy and approvals decide exactly
 * as they did), but `run` returns the recorded rendered output and touches
 * nothing.
 */
export function stubFromRecording(tool: AnyTool, recorded: RecordedOutputs): AnyTool {
  return {
    ...tool,
    // The stub returns rendered text, not the tool's output: neither its schema nor its trace fields apply.
    output: undefined,
    traceFields: undefined,
    async run(_args: unknown, context: ToolContext): Promise<string> {
      const answer = recorded.forCall(context.stepId, context.callId, indexOf(context));
      if (!answer)
        throw new ReinError("tool_failed", `the recording has no result for ${tool.name} call ${context.callId} in step ${context.stepId}`);
      if (answer.status !== "ok") throw new ReinError("tool_failed", answer.error ?? `recorded ${answer.status}`);
      if (answer.output === undefined) {
        throw new ReinError(
          "tool_failed",
          `the recording of ${tool.name} call ${context.callId} holds only its hash, not its output; re-record with a current Rein`,
        );
      }
      return answer.output;
    },
    render: (output: string) => output,
  };
}

/**
 * How a replay treats tools. "stub", the default, answers every call from
 * the recording: a replay touches nothing unless asked. "real" (`rein replay
 * --run-tools`) re-runs them in a fresh workspace; each call that needs
 * approval then waits for a fresh decision from a person.
 */
export type ToolMode = "real" | "stub";
export const DEFAULT_TOOL_MODE: ToolMode = "stub";

/**
 * The tools of a replay: in "real" mode they re-execute, except that a tool
 * with `external` effect is answered from the recording unless
 * `allowExternal` (replay must not send the same email twice). Returns which
 * tools were stubbed.
 */
export function replayTools(
  tools: readonly AnyTool[],
  recorded: RecordedOutputs,
  options: { mode: ToolMode; allowExternal: boolean },
): { tools: AnyTool[]; stubbed: string[] } {
  const stubbed: string[] = [];
  const result = tools.map((tool) => {
    const stub = options.mode === "stub" || (tool.effect === "external" && !options.allowExternal);
    if (!stub) return tool;
    stubbed.push(tool.name);
    return stubFromRecording(tool, recorded);
  });
  return { tools: result, stubbed: stubbed.sort() };
}

/**
 * The tools of a replay over this deployment: built-ins, the caller's, and
 * config `plugins`' (their manifests are read; no plugin is started), each
 * real or stubbed as `replayTools` decides. A real plugin tool is left out:
 * the replay's own tooling starts the plugin and supplies it.
 */
export async function replayToolSet(
  config: ReinConfig,
  extra: readonly AnyTool[],
  recorded: RecordedOutputs,
  options: { mode: ToolMode; allowExternal: boolean },
): Promise<{ tools: AnyTool[]; stubbed: string[] }> {
  const plugins = await loadPlugins(config.plugins, {
    sandbox: () => resolveSandbox(config.sandbox),
    secrets: SecretBindings.none(),
    logger: createLogger(),
  });
  await plugins.close();
  const own = buildRegistry(config, extra).list();
  const pluginTools = plugins.tools.filter((tool) => !own.some((candidate) => candidate.name === tool.name));
  const { tools, stubbed } = replayTools([...own, ...pluginTools], recorded, options);
  const fromPlugins = new Set(pluginTools.map((tool) => tool.name));
  return { tools: tools.filter((tool) => !fromPlugins.has(tool.name) || stubbed.includes(tool.name)), stubbed };
}
