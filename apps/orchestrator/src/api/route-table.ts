import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import type { ApiRole, Caller } from "./api-tokens.ts";
import { parse } from "./http-io.ts";

/** The names of the `{parameters}` of a path written as OpenAPI writes it: `"/runs/{id}/calls/{callId}"` → `"id" | "callId"`. */
export type PathParameters<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParameters<Rest>
  : never;

/** A path's parameters as its handler receives them. */
export type PathValues<Path extends string> = { readonly [Name in PathParameters<Path>]: string };

/**
 * One route as it is written: its handler receives the path's parameters
 * typed from `path` and parsed by `params`, a schema of exactly those names
 * (built once, at module level). `caller` is who the request's bearer
 * token stands for (see RequestGuard); undefined on a public route.
 */
export interface RouteDefinition<Path extends string> {
  method: "GET" | "POST";
  /** Written as OpenAPI writes it (`/runs/{id}`), so the document and the table compare. */
  path: Path;
  /** Only the dashboard page is served without the bearer token: it holds nothing. */
  public?: true;
  /** The least role whose token may call it; a lesser one gets 403. @defaultValue "viewer" */
  role?: ApiRole;
  params: z.ZodType<PathValues<Path>>;
  handle: (
    request: IncomingMessage,
    response: ServerResponse,
    params: PathValues<Path>,
    url: URL,
    caller: Caller | undefined,
  ) => Promise<void>;
}

/** A route of the table, whatever its path: the matcher hands it the path's raw parameters, which it parses itself. */
export interface Route {
  method: "GET" | "POST";
  path: string;
  public?: true;
  role: ApiRole;
  handle: (
    request: IncomingMessage,
    response: ServerResponse,
    rawParams: Readonly<Record<string, string>>,
    url: URL,
    caller: Caller | undefined,
  ) => Promise<void>;
}

/** A route of the table from its definition. */
export function route<const Path extends string>(definition: RouteDefinition<Path>): Route {
  return {
    method: definition.method,
    path: definition.path,
    ...(definition.public ? { public: true } : {}),
    role: definition.role ?? "viewer",
    handle: async (request, response, rawParams, url, caller) =>
      definition.handle(request, response, parse(definition.params, rawParams, "path"), url, caller),
  };
}

/** What a path parameter may be: ids are word characters and dashes; a model's call ids may also hold dots and colons. */
const PARAMETER_PATTERN: Readonly<Record<string, string>> = { callId: "[\\w.:-]+" };

/** Matches a request against the table; undefined when no route has that method and path. */
export function routeMatcher(
  routes: readonly Route[],
): (method: string | undefined, pathname: string) => { route: Route; params: Readonly<Record<string, string>> } | undefined {
  const compiled = routes.map((candidate) => {
    const source = candidate.path.replace(/\{(\w+)\}/g, (_, name: string) => `(?<${name}>${PARAMETER_PATTERN[name] ?? "[\\w-]+"})`);
    return { route: candidate, pattern: new RegExp(`^${source}$`) };
  });
  return (method, pathname) => {
    for (const { route: candidate, pattern } of compiled) {
      const match = candidate.method === method ? pattern.exec(pathname) : null;
      if (match) return { route: candidate, params: { ...match.groups } };
    }
    return undefined;
  };
}
