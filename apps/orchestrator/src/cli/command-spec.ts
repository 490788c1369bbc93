/**
 * How a command and its flags are declared: once, as data, with the type of
 * each flag's value. `rein --help` and every `rein <command> --help` are
 * rendered from these declarations, `parseArgs` reads the command line with
 * them, and the values a command receives are typed from them.
 */

/** A flag; `kind` says what its value is, `value` names it in help ("N", "DIR"). */
export type FlagSpec =
  | { kind: "boolean"; help: string; short?: string }
  | { kind: "string"; value: string; help: string; short?: string; multiple?: boolean }
  | { kind: "integer"; value: string; help: string; min: number; max?: number }
  | { kind: "choice"; choices: readonly string[]; help: string; multiple?: boolean };

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

export interface CommandSpec {
  name: string;
  /** The forms of its positional arguments, one usage line each (`'"<goal>"'`, `"list"`); empty for none. */
  args: readonly string[];
  summary: string;
  flags: FlagSpecs;
}

/** Flags every command takes. */
export const GLOBAL_FLAGS = {
  config: { kind: "string", value: "FILE", help: "the config file (default: ./rein.config.json when present)" },
  redis: { kind: "string", value: "URL", help: "the Redis to use; wins over REDIS_URL and the config's redisUrl" },
  "log-file": { kind: "string", value: "PATH", help: "append logs (pino JSON, info unless REIN_LOG_LEVEL says otherwise) to PATH instead of stderr" },
  help: { kind: "boolean", short: "h", help: "print this help" },
} as const satisfies FlagSpecs;

type ValueOf<F extends FlagSpec> = F extends { kind: "boolean" }
  ? boolean
  : F extends { kind: "integer" }
    ? number
    : F extends { kind: "choice"; choices: readonly (infer Choice)[] }
      ? F extends { multiple: true }
        ? Choice[]
        : Choice
      : F extends { multiple: true }
        ? string[]
        : string;

/** The parsed values of flags declared by `Flags`; a flag not given is absent. */
export type FlagValues<Flags extends FlagSpecs> = { -readonly [Name in keyof Flags]?: ValueOf<Flags[Name]> };

/** What a command's handler receives: its own flags and the global ones, parsed. */
export type ParsedFlags<Spec extends CommandSpec> = FlagValues<Spec["flags"]> & FlagValues<typeof GLOBAL_FLAGS>;

/** A command's behaviour: positional arguments and parsed flags in, the process exit code out. */
export type CommandHandler<Spec extends CommandSpec> = (args: string[], flags: ParsedFlags<Spec>) => Promise<number>;

/** Keeps a declaration's literal types (flag names, choices), so its handler's flags are typed exactly. */
export const defineCommand = <const Spec extends CommandSpec>(spec: Spec): Spec => spec;
