import { closestName, ReinError } from "@rein/contracts";
import { usageOf } from "./command-help.ts";
import type { ArgSpec, CommandSpec, ParsedArgs } from "./command-spec.ts";

/**
 * A command line's positional arguments read against the command's
 * declaration: the subcommand the first one names, then each declared
 * argument by name. A missing or empty required argument, one too many, or
 * a subcommand the command does not have (with the one it is closest to) is
 * a `config_invalid` error that says what was expected.
 */
export function argValuesOf<Spec extends CommandSpec>(spec: Spec, positionals: readonly string[]): ParsedArgs<Spec> {
  const values = readArgs(spec, positionals);
  // Each value was read by the declaration ParsedArgs<Spec> is computed from: the subcommand's name, then its arguments by name.
  return values as ParsedArgs<Spec>;
}

function readArgs(spec: CommandSpec, positionals: readonly string[]): Record<string, string | undefined> {
  const [first, ...rest] = positionals;
  const subcommands = spec.subcommands ?? {};
  const names = Object.keys(subcommands);
  const chosen = first === undefined ? undefined : subcommands[first];
  if (chosen) return { subcommand: first, ...valuesOf(spec, chosen.args, rest) };
  if (names.length === 0) return valuesOf(spec, spec.args ?? [], positionals);
  // A first argument that is not a subcommand is the form without one, unless that form takes none or cannot take these and it looks like a mistyped subcommand.
  const bare = spec.args;
  const mistyped =
    first !== undefined && (!bare || bare.length === 0 || (!fits(bare, positionals) && closestName(first, names) !== undefined));
  if (!bare || mistyped) throw unknownSubcommand(spec, first, names);
  return { subcommand: undefined, ...valuesOf(spec, bare, positionals) };
}

const fits = (args: readonly ArgSpec[], positionals: readonly string[]) =>
  positionals.length <= args.length && args.every((arg, index) => arg.optional || Boolean(positionals[index]));

function valuesOf(spec: CommandSpec, args: readonly ArgSpec[], positionals: readonly string[]): Record<string, string | undefined> {
  const extra = positionals[args.length];
  if (extra !== undefined) throw problem(spec, `unexpected argument ${JSON.stringify(extra)} (quote an argument that has spaces)`);
  const values: Record<string, string | undefined> = {};
  for (const [index, arg] of args.entries()) {
    const value = positionals[index];
    if (!value && !arg.optional) throw problem(spec, `missing ${arg.value}: ${arg.help}`);
    values[arg.name] = value;
  }
  return values;
}

function unknownSubcommand(spec: CommandSpec, given: string | undefined, names: readonly string[]): ReinError {
  if (given === undefined) return problem(spec, `expected a subcommand: ${names.join(", ")}`);
  const guess = closestName(given, names);
  return problem(
    spec,
    `unknown subcommand ${JSON.stringify(given)}${guess ? `; did you mean "rein ${spec.name} ${guess}"?` : ""}; expected one of: ${names.join(", ")}`,
  );
}

const problem = (spec: CommandSpec, message: string) =>
  new ReinError("config_invalid", `${message}; usage: ${usageOf(spec)}  (rein ${spec.name} --help explains each)`);
