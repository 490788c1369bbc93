import type { PolicyRule, ToolGrant } from "@rein/contracts";
import { type Redactor, SecretBindings } from "@rein/guard";
import type { ReinConfig } from "@rein/runtime";
import {
  type AnyTool,
  type ArtifactWriter,
  type CommandResult,
  createToolExecutor,
  runCommandTool,
  ToolRegistry,
  type TraceSink,
  type Workspace,
} from "@rein/tools";
import { asCheckEvent } from "@rein/trace";

export interface CommandOutcome {
  exitCode: number;
  output: string;
  /** The command was not run: outside the run's grant or policy, needing a person's approval, or no sandbox. */
  refused?: boolean;
  /** Killed by the runtime (timeout or runaway output). */
  killed?: boolean;
}

/** What one acceptance check runs under: the run's own grant and policy for `run_command`. */
export interface CheckContext {
  runId: string;
  stepId: string;
  /** The attempt being evaluated: its checks' idempotency keys are its own. */
  attempt: number;
  /** The goal's `run_command` grant; without one, no command check runs. */
  grant?: ToolGrant;
  /** The goal's policy rules. */
  policy: readonly PolicyRule[];
  workspace: Workspace;
  signal?: AbortSignal;
  /** The evaluate job's trace writer: the check's events go there, in order with the job's own. @defaultValue the runner's `trace` */
  trace?: TraceSink;
}

/** Runs acceptance `command` checks; the evaluator holds one. */
export interface CommandCheckRunner {
  run(argv: readonly string[], index: number, context: CheckContext): Promise<CommandOutcome>;
}

export interface CommandCheckDeps {
  trace: TraceSink;
  artifacts: ArtifactWriter;
  config: Pick<ReinConfig, "policy" | "observations" | "tools" | "sandbox" | "sandboxLimits">;
  /**
   * The deployment's secrets. A check gets only those config binds to
   * `run_command` that its goal's grant also names in `checkSecrets`; by
   * default none, since a planner writes the program and its output
   * becomes feedback in later prompts.
   */
  secrets?: SecretBindings;
  redactor?: Redactor;
}

const OUTPUT_CAP = 4_000;
const CHECK_OUTPUT_BYTES = 64 * 1024;

/**
 * Acceptance checks are planner-written argv lists, so they go through the
 * same executor pipeline as a worker's `run_command` (the run's grant, input
 * validation, scope, permission policy by the command, sandbox), as a
 * read-only principal: the workspace is mounted read-only, no network, no
 * secret unless the grant names it. There is no approval store here, so a
 * check the policy would ask a person about is not run: it is reported
 * unrunnable and the planner replans, never silently run. Its trace events
 * are the executor's own, prefixed `check.`, so they never count as a
 * worker's calls.
 */
export function commandCheckRunner(deps: CommandCheckDeps): CommandCheckRunner {
  return {
    async run(argv, index, context) {
      const [command, ...args] = argv;
      if (!command) return { exitCode: -1, refused: true, output: "refused: the check's argv is empty" };
      if (!context.grant) {
        return {
          exitCode: -1,
          refused: true,
          output: "refused: the goal does not grant run_command, so no command check can run; use file_contains or judge criteria",
        };
      }
      const trace = context.trace ?? deps.trace;
      let result: CommandResult | undefined;
      const tool = runCommandTool(
        {
          commands: deps.config.tools.commands,
          sandbox: deps.config.sandbox,
          sandboxLimits: deps.config.sandboxLimits,
          maxCommandOutputBytes: CHECK_OUTPUT_BYTES,
        },
        { readOnly: true },
      );
      const recording: AnyTool = {
        ...tool,
        run: async (input, toolContext) => {
          result = await tool.run(input, toolContext);
          return result;
        },
      };
      const executor = createToolExecutor({
        registry: new ToolRegistry([recording]),
        trace,
        artifacts: deps.artifacts,
        config: deps.config,
        secrets: (deps.secrets ?? SecretBindings.none()).only(context.grant.checkSecrets ?? []),
        redactor: deps.redactor,
      });
      const outcome = await executor.execute(
        { type: "tool_call", id: `check_${index}`, name: "run_command", input: { command, args } },
        index,
        {
          runId: context.runId,
          stepId: context.stepId,
          attempt: context.attempt,
          parentStepId: null,
          surface: [context.grant],
          policy: context.policy,
          workspace: context.workspace,
          signal: context.signal ?? new AbortController().signal,
          budget: { maxToolCalls: Number.MAX_SAFE_INTEGER, deadline: Number.MAX_SAFE_INTEGER },
          callsSoFar: 0,
          trace: { append: (event) => trace.append(asCheckEvent(event)) },
        },
      );
      const status = outcome.observation.status;
      if (status === "ok" && result) {
        await trace.append({
          runId: context.runId,
          stepId: context.stepId,
          kind: "check.command_finished",
          payload: { argv: [...argv], exitCode: result.exitCode, sandbox: result.sandbox, killedBy: result.killedBy },
        });
        const output = `${result.stdout}${result.stderr}`.slice(-OUTPUT_CAP);
        if (result.killedBy)
          return {
            exitCode: result.exitCode ?? -1,
            killed: true,
            output: `killed (${result.killedBy}) inside the ${result.sandbox} sandbox\n${output}`,
          };
        return { exitCode: result.exitCode ?? -1, output };
      }
      const firstLine = outcome.observation.content.split("\n")[0] ?? status;
      if (status === "timeout") return { exitCode: -1, killed: true, output: firstLine };
      return { exitCode: -1, refused: true, output: `not run (${status}): ${firstLine}` };
    },
  };
}
