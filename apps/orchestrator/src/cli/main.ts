import { type ParseArgsConfig, parseArgs } from "node:util";
import { commandHelp, overviewHelp, usageOf } from "./command-help.ts";
import { type FlagSpecs, GLOBAL_FLAGS } from "./command-spec.ts";
import { err, out } from "./output.ts";
import { COMMANDS, type RawCommandLine } from "./registry.ts";

type ParseOptions = NonNullable<ParseArgsConfig["options"]>;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    out(overviewHelp(COMMANDS.map((command) => command.spec)));
    return name ? 0 : 2;
  }
  const command = COMMANDS.find((candidate) => candidate.spec.name === name);
  if (!command) {
    const names = COMMANDS.map((candidate) => candidate.spec.name);
    // Loaded here, not at the top: `rein --help` then starts without Rein's packages.
    const { closestName } = await import("@rein/contracts");
    const guess = closestName(name, names);
    err(`rein: unknown command "${name}"${guess ? `; did you mean "rein ${guess}"?` : ""}; expected one of: ${names.join(", ")}`);
    return 2;
  }
  const { spec } = command;
  const options = parseOptionsOf({ ...spec.flags, ...GLOBAL_FLAGS });
  let line: RawCommandLine;
  try {
    const parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    line = { args: parsed.positionals, flags: parsed.values };
  } catch (error) {
    err(`rein ${name}: ${await flagProblem(error, rest, options)}\nusage: ${usageOf(spec)}  (rein ${name} --help lists every option)`);
    return 2;
  }
  if (line.flags.help) {
    out(commandHelp(spec));
    return 0;
  }
  try {
    const { logLevelFrom } = await import("@rein/guard");
    // Checked before any work, for every command, so a mistyped level is one clear line.
    logLevelFrom(process.env, "warn");
    return await command.run(line);
  } catch (error) {
    const { ReinError } = await import("@rein/contracts");
    if (ReinError.isInstance(error)) {
      err(`rein ${name}: ${error.message}`);
      return ["goal_invalid", "config_invalid", "not_found", "workspace_invalid"].includes(error.code) ? 2 : 1;
    }
    err(`rein ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}

/** The declarations as `parseArgs` takes them: every value it reads is text or a switch. */
function parseOptionsOf(flags: FlagSpecs): ParseOptions {
  return Object.fromEntries(
    Object.entries(flags).map(([name, flag]) => [
      name,
      {
        type: flag.kind === "boolean" ? "boolean" : "string",
        ...("short" in flag && flag.short ? { short: flag.short } : {}),
        ...("multiple" in flag && flag.multiple ? { multiple: true } : {}),
      },
    ]),
  );
}

/** What was wrong with the command line; for an unknown flag, the declared one it is closest to. */
async function flagProblem(error: unknown, args: string[], options: ParseOptions): Promise<string> {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  if (code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return error instanceof Error ? error.message : String(error);
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  const unknown = tokens.find((token) => token.kind === "option" && !(token.name in options));
  if (unknown?.kind !== "option") return error instanceof Error ? error.message : String(error);
  const { closestName } = await import("@rein/contracts");
  const guess = closestName(unknown.name, Object.keys(options));
  return `unknown option ${unknown.rawName}${guess ? `; did you mean --${guess}?` : ""}`;
}
