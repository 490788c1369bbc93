import type { CommandHandler, CommandSpec } from "./command-spec.ts";
import * as specs from "./command-specs.ts";

/** What parseArgs read: positional arguments and flag values, not yet checked against their declarations. */
export interface RawCommandLine {
  args: string[];
  flags: Record<string, string | boolean | (string | boolean)[] | undefined>;
}

/** A declared command and how to run it; its module is imported only when it runs. */
export interface CommandEntry {
  spec: CommandSpec;
  /** Imports the command's module and returns its handler. */
  load(): Promise<unknown>;
  run(line: RawCommandLine): Promise<number>;
}

/**
 * Binds a declaration to the handler written for it (the types hold them
 * together) without importing the handler's module: `rein --help` and a
 * command's own `--help` then load no command module, and a command loads
 * only its own module's imports, not every other command's.
 */
function entry<Spec extends CommandSpec>(spec: Spec, load: () => Promise<CommandHandler<Spec>>): CommandEntry {
  return {
    spec,
    load,
    run: async (line) => {
      const [handler, { argValuesOf }, { flagValuesOf }] = await Promise.all([
        load(),
        import("./arg-values.ts"),
        import("./flag-values.ts"),
      ]);
      return handler(argValuesOf(spec, line.args), flagValuesOf(spec, line.flags));
    },
  };
}

export const COMMANDS: readonly CommandEntry[] = [
  entry(specs.RUN, async () => (await import("./run-command.ts")).runCommand),
  entry(specs.DIFF, async () => (await import("./workspace-commands.ts")).diffCommand),
  entry(specs.APPLY, async () => (await import("./workspace-commands.ts")).applyCommand),
  entry(specs.SUBMIT, async () => (await import("./run-commands.ts")).submitCommand),
  entry(specs.STATUS, async () => (await import("./status-command.ts")).statusCommand),
  entry(specs.TRACE, async () => (await import("./trace-commands.ts")).traceCommand),
  entry(specs.REPLAY, async () => (await import("./replay-commands.ts")).replayCommand),
  entry(specs.EVAL, async () => (await import("./eval-commands.ts")).evalCommand),
  entry(specs.RUNS, async () => (await import("./runs-commands.ts")).runsCommand),
  entry(specs.CANCEL, async () => (await import("./run-commands.ts")).cancelCommand),
  entry(specs.REPLY, async () => (await import("./run-commands.ts")).replyCommand),
  entry(specs.APPROVALS, async () => (await import("./approval-commands.ts")).approvalsCommand),
  entry(specs.APPROVE, async () => (await import("./approval-commands.ts")).approveCommand),
  entry(specs.DENY, async () => (await import("./approval-commands.ts")).denyCommand),
  entry(specs.LESSONS, async () => (await import("./lesson-commands.ts")).lessonsCommand),
  entry(specs.PLUGINS, async () => (await import("./plugin-commands.ts")).pluginsCommand),
  entry(specs.MCP, async () => (await import("./mcp-commands.ts")).mcpCommand),
  entry(specs.SERVE, async () => (await import("./role-commands.ts")).serveCommand),
  entry(specs.WORKER, async () => (await import("./role-commands.ts")).workerCommand),
  entry(specs.MODELS, async () => (await import("./models-command.ts")).modelsCommand),
  entry(specs.CONFIG, async () => (await import("./config-commands.ts")).configCommand),
  entry(specs.KEYS, async () => (await import("./admin-commands.ts")).keysCommand),
];
