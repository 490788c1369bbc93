/**
 * How a command, its subcommands, positional arguments and flags are
 * declared: once, as data, with the type of each flag's value. `rein --help`
 * and every `rein <command> --help` are rendered from these declarations,
 * the command line is parsed with them, and the values a command receives
 * are typed from them.
 */

/** A flag; `kind` says what its value is, `value` names it in help ("N", "DIR"). */
export type FlagSpec =
  | { kind: "boolean"; help: string; short?: string }
  | { kind: "string"; value: string; help: string; short?: string; multiple?: boolean }
  | { kind: "integer"; value: string; help: string; min: number; max?: number }
  | { kind: "choice"; choices: readonly string[]; help: string; multiple?: boolean };

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** A positional argument: `name` keys its parsed value, `value` is how usage shows it (`'"<goal>"'`, `"<runId>"`). */
export interface ArgSpec {
  name: string;
  value: string;
  help: string;
  /** May be left out (`rein run --example bugfix` needs no goal); a required one may not be empty. */
  optional?: boolean;
}

/** A subcommand (`rein mcp check <name>`): its summary and the positional arguments after its name. */
export interface SubcommandSpec {
  summary: string;
  args: readonly ArgSpec[];
}

export interface CommandSpec {
  name: string;
  summary: string;
  /**
   * Its positional arguments, in order; `[]` for none. With `subcommands`,
   * those of the form without one; absent there, a subcommand is required.
   */
  args?: readonly ArgSpec[];
  /** Its subcommands by name: the first positional argument picks one, the rest are its own. */
  subcommands?: Readonly<Record<string, SubcommandSpec>>;
  flags: FlagSpecs;
}

/** Flags every command takes. */
export const GLOBAL_FLAGS = {
  config: { kind: "string", value: "FILE", help: "the config file (default: ./rein.config.json when present)" },
  redis: { kind: "string", value: "URL", help: "the Redis to use; wins over REDIS_URL and the config's redisUrl" },
  prefix: { kind: "string", value: "P", help: "the key prefix of the Rein to use; wins over REIN_PREFIX and the config's prefix" },
  "log-file": {
    kind: "string",
    value: "PATH",
    help: "append logs (pino JSON, info unless REIN_LOG_LEVEL says otherwise) to PATH instead of stderr",
  },
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

/** The parsed values of positional arguments declared by `Args`, by name; an optional one left out is undefined. */
export type ArgValues<Args extends readonly ArgSpec[]> = {
  -readonly [Arg in Args[number] as Arg["name"]]: Arg extends { optional: true } ? string | undefined : string;
};

type BareForm<Spec extends CommandSpec> = Spec extends { args: infer Args extends readonly ArgSpec[] } ? ArgValues<Args> : never;

type SubcommandForms<Subcommands extends Readonly<Record<string, SubcommandSpec>>> = {
  [Name in keyof Subcommands & string]: { subcommand: Name } & ArgValues<Subcommands[Name]["args"]>;
}[keyof Subcommands & string];

/**
 * What a command's handler receives of its positional arguments: their
 * values by name; with subcommands, which one was given (`subcommand`,
 * undefined for the form without one) and its own arguments.
 */
export type ParsedArgs<Spec extends CommandSpec> = Spec extends {
  subcommands: infer Subcommands extends Readonly<Record<string, SubcommandSpec>>;
}
  ? SubcommandForms<Subcommands> | ({ subcommand: undefined } & BareForm<Spec>)
  : BareForm<Spec>;

/** A command's behaviour: parsed positional arguments and flags in, the process exit code out. */
export type CommandHandler<Spec extends CommandSpec> = (args: ParsedArgs<Spec>, flags: ParsedFlags<Spec>) => Promise<number>;

/** Keeps a declaration's literal types (flag names, choices), so its handler's flags are typed exactly. */
export const defineCommand = <const Spec extends CommandSpec>(spec: Spec): Spec => spec;
