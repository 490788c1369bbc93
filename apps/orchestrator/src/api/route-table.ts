import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * `identity` is who the request's bearer token stands for (see
 * RequestGuard); undefined on a public route.
 */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse, params: Readonly<Record<string, string>>, url: URL, identity: string | undefined) => Promise<void>;

/** One route of the HTTP API; `path` is written as OpenAPI writes it (`/runs/{id}`), so the document and the table compare. */
export interface Route {
  method: "GET" | "POST";
  path: string;
  /** Only the dashboard page is served without the bearer token: it holds nothing. */
  public?: true;
  handle: RouteHandler;
}

/** What a path parameter may be: ids are word characters and dashes; a model's call ids may also hold dots and colons. */
const PARAMETER_PATTERN: Readonly<Record<string, string>> = { callId: "[\\w.:-]+" };

interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

/** Matches a request against the table; undefined when no route has that method and path. */
export function routeMatcher(routes: readonly Route[]): (method: string | undefined, pathname: string) => { route: Route; params: Record<string, string> } | undefined {
  const compiled: CompiledRoute[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return `(${PARAMETER_PATTERN[name] ?? "[\\w-]+"})`;
    });
    return { ...route, pattern: new RegExp(`^${source}$`), names };
  });
  return (method, pathname) => {
    for (const route of compiled) {
      const match = route.method === method ? route.pattern.exec(pathname) : null;
      if (match) return { route, params: Object.fromEntries(route.names.map((name, i) => [name, match[i + 1] as string])) };
    }
    return undefined;
  };
}
