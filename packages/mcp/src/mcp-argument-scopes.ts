import picomatch from "picomatch";
import { z } from "zod";
import { type Scope, ReinError } from "@rein/contracts";
import { destinationOf, formatHostPort, hostPortProblem, parseHostPort } from "@rein/guard";

/**
 * Where an argument sits: keys joined by `.`, a key ending in `[]` for an
 * array of them, e.g. `path`, `paths[]`, `edits[].path`.
 */
const ArgumentSelector = z
  .string()
  .regex(/^[A-Za-z0-9_$-]+(\[\])?(\.[A-Za-z0-9_$-]+(\[\])?)*$/, "expected an argument selector such as path, paths[] or edits[].path");

/**
 * Which of an MCP tool's arguments name resources, so path and host rules
 * apply to it as to a built-in. Paths are resolved through the run's
 * workspace and the server is sent the real path that was checked.
 */
export const McpArgumentScopes = z
  .object({
    /** Arguments that are file paths (relative to the run's workspace, or absolute inside it). */
    paths: z.array(ArgumentSelector).default([]),
    /** Arguments that are URLs or `host[:port]` names. */
    hosts: z.array(ArgumentSelector).default([]),
  })
  .strict();
export type McpArgumentScopes = z.infer<typeof McpArgumentScopes>;

/** One argument a selector found, with the way to replace it in the arguments it came from. */
interface SelectedArgument {
  where: string;
  value: string;
  replace(value: string): void;
}

/**
 * The scope of one MCP call: the server as a service, plus every path and
 * host its mapped arguments name. An argument of a shape the mapping does not
 * expect (an array where a path was meant, an object, a number, a glob) is
 * refused as invalid input rather than skipped, so a hostile model cannot
 * hide a path from policy by wrapping it.
 */
export function mcpCallScope(server: string, scopes: McpArgumentScopes | undefined, args: unknown): Scope {
  const scope: Scope = { services: [`mcp:${server}`] };
  if (!scopes) return scope;
  const paths = scopes.paths.flatMap((selector) => selectArguments(args, selector)).map(({ where, value }) => literalPath(where, value));
  const hosts = scopes.hosts.flatMap((selector) => selectArguments(args, selector)).map(({ where, value }) => hostOf(where, value));
  if (paths.length > 0) scope.paths = paths;
  if (hosts.length > 0) scope.hosts = hosts;
  return scope;
}

/**
 * A copy of `args` with every mapped path replaced by `resolve(path)`: the
 * server then acts on exactly the file policy checked, not on the same
 * string read against its own working directory or through a symlink.
 */
export async function withResolvedPaths(
  args: Record<string, unknown>,
  scopes: McpArgumentScopes | undefined,
  resolve: (path: string) => Promise<string>,
): Promise<Record<string, unknown>> {
  if (!scopes || scopes.paths.length === 0) return args;
  const copy = structuredClone(args);
  for (const selector of scopes.paths) {
    for (const selected of selectArguments(copy, selector)) selected.replace(await resolve(literalPath(selected.where, selected.value)));
  }
  return copy;
}

function selectArguments(args: unknown, selector: string): SelectedArgument[] {
  const segments = selector.split(".");
  const found: SelectedArgument[] = [];
  const visit = (item: unknown, index: number, where: string, replace: (next: string) => void): void => {
    if (index < segments.length) {
      walk(item, index, where);
      return;
    }
    if (typeof item !== "string") throw invalidArgument(where, "a string");
    found.push({ where, value: item, replace });
  };
  const walk = (container: unknown, index: number, where: string): void => {
    const segment = segments[index] as string;
    const many = segment.endsWith("[]");
    const key = many ? segment.slice(0, -2) : segment;
    if (!isPlainObject(container)) throw invalidArgument(where || "arguments", "an object");
    if (!Object.hasOwn(container, key) || container[key] === undefined) return;
    const here = where ? `${where}.${key}` : key;
    const value = container[key];
    if (!many) {
      visit(value, index + 1, here, (next) => {
        container[key] = next;
      });
      return;
    }
    if (!Array.isArray(value)) throw invalidArgument(here, "an array");
    for (const [position, item] of value.entries()) {
      visit(item, index + 1, `${here}[${position}]`, (next) => {
        value[position] = next;
      });
    }
  };
  walk(args, 0, "");
  return found;
}

function literalPath(where: string, value: string): string {
  // Scopes read a glob as a pattern, and a server reads the same string as a literal name: refuse the ambiguity.
  if (picomatch.scan(value).isGlob) {
    throw new ReinError(
      "workspace_violation",
      `argument ${where} (${JSON.stringify(value.slice(0, 64))}) has glob characters; expected a literal path`,
      {
        details: { invalidInput: true },
      },
    );
  }
  return value;
}

function hostOf(where: string, value: string): string {
  if (value.includes("://")) {
    try {
      return formatHostPort(destinationOf(new URL(value)));
    } catch {
      throw invalidArgument(where, "a URL");
    }
  }
  const problem = hostPortProblem(value.includes(":") ? value : `${value}:443`);
  if (problem) throw invalidArgument(where, "a URL or a host name");
  return formatHostPort(parseHostPort(value));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalidArgument(where: string, expected: string): ReinError {
  return new ReinError("workspace_violation", `argument ${where} is not ${expected}, which this tool's scope mapping expects there`, {
    details: { invalidInput: true },
  });
}
