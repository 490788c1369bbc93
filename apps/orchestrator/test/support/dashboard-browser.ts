import { runInNewContext } from "node:vm";

/** A DOM element as far as the dashboard script uses one; the script sets more (placeholder, onclick) with Object.assign. */
class FakeElement {
  [attribute: string]: unknown;
  value = "";
  textContent = "";
  className = "";
  children: unknown[] = [];
  readonly classList = { toggle: () => {} };
  readonly dataset: Record<string, string> = {};
  constructor(readonly tag = "") {}
  /** Only the selectors the page uses: one data attribute, `[data-key="…"]` or `[data-testid="…"]`. */
  querySelector(selector: string): FakeElement | null {
    return this.querySelectorAll(selector)[0] ?? null;
  }
  querySelectorAll(selector: string): FakeElement[] {
    const [, name, value] = /^\[data-(key|testid)="(.*)"\]$/.exec(selector) ?? [];
    return name === undefined ? [] : findNodes(this, (node) => node.dataset[name] === value);
  }
  get childNodes(): unknown[] {
    return this.children;
  }
  addEventListener(): void {}
  append(...nodes: unknown[]): void {
    this.children.push(...nodes);
  }
  replaceChildren(...nodes: unknown[]): void {
    this.children = nodes;
  }
  insertBefore(node: unknown, before: unknown): void {
    const at = before === null ? -1 : this.children.indexOf(before);
    this.children.splice(at === -1 ? this.children.length : at, 0, node);
  }
  removeChild(node: unknown): void {
    this.children.splice(this.children.indexOf(node), 1);
  }
}

export type FakeNode = FakeElement;

/** The first element under `root`, depth first, that `test` accepts. */
export function findNode(root: FakeNode, test: (node: FakeNode) => boolean): FakeNode | undefined {
  return findNodes(root, test)[0];
}

/** Every element under `root`, depth first, that `test` accepts. */
export function findNodes(root: FakeNode, test: (node: FakeNode) => boolean): FakeNode[] {
  return root.children.flatMap((child) =>
    child instanceof FakeElement ? [...(test(child) ? [child] : []), ...findNodes(child, test)] : [],
  );
}

/** The API as a page sees it: a fetch taking the path the page asks for. */
export type PageFetch = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * An API that answers each path in `routes` with its JSON body, or with the
 * Response a function there makes, and any other path with the 404 the real
 * API sends: for a page test that needs no server.
 */
export function fakeApi(routes: Record<string, unknown>): PageFetch {
  return async (path) => {
    if (!Object.hasOwn(routes, path)) return Response.json({ error: `no route ${path} in this test` }, { status: 404 });
    const route = routes[path];
    return typeof route === "function" ? (route as () => Response)() : Response.json(route);
  };
}

export interface DashboardVisit {
  /** What the page asked the server: path, the Authorization it sent, the status it got. */
  requests: { path: string; authorization: string | null; status: number }[];
  session: Map<string, string>;
  /** The address bar after the page ran. */
  location: { pathname: string; hash: string };
  element(id: string): FakeElement;
  /** Resolves once `condition` holds of the page, checked as its requests come back. */
  until(condition: () => boolean): Promise<void>;
}

/**
 * Runs the dashboard page's own script as a browser would after opening
 * `base + "/" + hash`: its fetches go to the real server at `base` (or to a
 * fakeApi) with the headers the script sets (a browser adds no Authorization
 * of its own). Only the DOM is stubbed, and only as far as the script touches it.
 */
export function visitDashboard(html: string, base: string | PageFetch, hash: string, session = new Map<string, string>()): DashboardVisit {
  const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1];
  if (!script) throw new Error("the dashboard page has no script");
  const elements = new Map<string, FakeElement>();
  const element = (id: string) => elements.get(id) ?? (elements.set(id, new FakeElement()).get(id) as FakeElement);
  const location = { pathname: "/", hash };
  const requests: DashboardVisit["requests"] = [];
  const server: PageFetch = typeof base === "string" ? (path, init) => fetch(`${base}${path}`, init) : base;
  const browserFetch = (path: string, init: RequestInit = {}) => {
    const sent = server(path, init).then((response) => {
      requests.push({ path, authorization: new Headers(init.headers).get("authorization"), status: response.status });
      return response;
    });
    return sent;
  };
  runInNewContext(script, {
    document: { getElementById: element, createElement: (tag: string) => new FakeElement(tag), querySelectorAll: () => [] },
    sessionStorage: {
      getItem: (key: string) => session.get(key) ?? null,
      setItem: (key: string, value: string) => session.set(key, value),
    },
    history: {
      replaceState: (_state: unknown, _title: string, url: string) => {
        const [pathname = "/", fragment] = url.split("#");
        Object.assign(location, { pathname: pathname || "/", hash: fragment ? `#${fragment}` : "" });
      },
    },
    location,
    fetch: browserFetch,
    alert: () => {},
    // Timers are not run (the durations' tick, a reconnect, the search box's pause): a visit sees the page's own requests only.
    setInterval: () => 0,
    clearInterval: () => {},
    setTimeout: () => 0,
    clearTimeout: () => {},
    URLSearchParams,
    CSS: { escape: (text: string) => text },
    TextDecoder,
    AbortController,
  });
  return {
    requests,
    session,
    location,
    element,
    until: async (condition) => {
      const deadline = Date.now() + 10_000;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`the dashboard never got there; it asked: ${JSON.stringify(requests)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}
