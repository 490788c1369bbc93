import { type ArgSpec, type CommandSpec, type FlagSpec, type FlagSpecs, GLOBAL_FLAGS } from "./command-spec.ts";

/** `rein --help`: every command with its first form and summary. */
export function overviewHelp(specs: readonly CommandSpec[]): string {
  const rows = specs.map((spec) => [synopsis(spec, formsOf(spec)[0] ?? ""), spec.summary] as const);
  return `rein — a harness for multi-agent work

Usage: rein <command> [options]   (rein <command> --help lists every option of a command)

${table(rows, 34)}

Every command takes:
${table(flagRows(GLOBAL_FLAGS), 22)}
Redis, the same for every command: --redis URL, else REDIS_URL, else the config's redisUrl,
else redis://127.0.0.1:6379 (\`rein run\` starts a private one when that does not answer).
Logs (pino JSON) go to stderr, never to stdout, or with --log-file PATH to that file (appended).
Their level is REIN_LOG_LEVEL (fatal, error, warn, info, debug, trace, silent), else info for
rein serve, rein worker and any --log-file, else warn.`;
}

/** `rein <command> --help`: its usage lines, summary, subcommands, arguments, and every flag it takes with what it does. */
export function commandHelp(spec: CommandSpec): string {
  const usage = formsOf(spec)
    .map((form, index) => `${index === 0 ? "usage: " : "       "}rein ${synopsis(spec, form)} [options]`)
    .join("\n");
  const subcommands = Object.entries(spec.subcommands ?? {}).map(
    ([name, subcommand]) => [[name, ...subcommand.args.map((arg) => arg.value)].join(" "), subcommand.summary] as const,
  );
  const args = argumentsOf(spec).map((arg) => [arg.value, `${arg.help}${arg.optional ? " (optional)" : ""}`] as const);
  const own = Object.keys(spec.flags).length > 0 ? `\n\noptions:\n${table(flagRows(spec.flags), 30)}` : "";
  return [
    `${usage}\n\n${spec.summary}`,
    subcommands.length > 0 ? `\n\nsubcommands:\n${table(subcommands, 30)}` : "",
    args.length > 0 ? `\n\narguments:\n${table(args, 30)}` : "",
    own,
    `\n\nevery command:\n${table(flagRows(GLOBAL_FLAGS), 30)}`,
  ].join("");
}

/** How one usage line names a command: `rein usage` for people and for errors. */
export function usageOf(spec: CommandSpec): string {
  return formsOf(spec)
    .map((form) => `rein ${synopsis(spec, form)}`)
    .join("  |  ");
}

/** Each form of the command line after the command's name: the one without a subcommand (if any), then each subcommand's. */
export function formsOf(spec: CommandSpec): string[] {
  const bare = spec.args ? [spec.args.map((arg) => arg.value).join(" ")] : [];
  const subcommands = Object.entries(spec.subcommands ?? {}).map(([name, subcommand]) =>
    [name, ...subcommand.args.map((arg) => arg.value)].join(" "),
  );
  return [...bare, ...subcommands];
}

const synopsis = (spec: CommandSpec, form: string) => (form ? `${spec.name} ${form}` : spec.name);

/** Every positional argument of every form, each shape once. */
function argumentsOf(spec: CommandSpec): ArgSpec[] {
  const all = [...(spec.args ?? []), ...Object.values(spec.subcommands ?? {}).flatMap((subcommand) => subcommand.args)];
  return all.filter((arg, index) => all.findIndex((other) => other.value === arg.value) === index);
}

function flagRows(flags: FlagSpecs): (readonly [string, string])[] {
  return Object.entries(flags).map(
    ([name, flag]) => [`${"short" in flag && flag.short ? `-${flag.short}, ` : ""}--${name}${placeholder(flag)}`, describe(flag)] as const,
  );
}

function placeholder(flag: FlagSpec): string {
  if (flag.kind === "boolean") return "";
  return ` ${flag.kind === "choice" ? flag.choices.join("|") : flag.value}`;
}

function describe(flag: FlagSpec): string {
  const bounds =
    flag.kind === "integer" ? ` (a whole number, ${flag.max === undefined ? `at least ${flag.min}` : `${flag.min} to ${flag.max}`})` : "";
  const repeat = "multiple" in flag && flag.multiple ? "; repeatable" : "";
  return `${flag.help}${bounds}${repeat}`;
}

function table(rows: readonly (readonly [string, string])[], width: number): string {
  return rows
    .map(([left, right]) => (left.length < width ? `  ${left.padEnd(width)} ${right}` : `  ${left}\n  ${"".padEnd(width)} ${right}`))
    .join("\n");
}
