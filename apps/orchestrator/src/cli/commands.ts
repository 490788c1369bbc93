import type { CliContext } from "./cli-context.ts";

/** Flags every command accepts, parsed by main.ts. */
export interface CommonFlags {
  config?: string;
}

export interface Command {
  name: string;
  usage: string;
  summary: string;
  /** parseArgs option spec for this command's flags. */
  options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;
  /** Returns the process exit code. */
  run(positionals: string[], flags: Record<string, unknown>): Promise<number>;
}

/** A command as the registry knows it before its module is loaded; `load()` imports the module. */
export interface CommandEntry extends Omit<Command, "run"> {
  load(): Promise<Command>;
}

export type { CliContext };
