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
  querySelector(): null {
    return null;
  }
  addEventListener(): void {}
  append(...nodes: unknown[]): void {
    this.children.push(...nodes);
  }
  replaceChildren(...nodes: unknown[]): void {
    this.children = nodes;
  }
}

export type FakeNode = FakeElement;

/** The first element under `root`, depth first, that `test` accepts. */
export function findNode(root: FakeNode, test: (node: FakeNode) => boolean): FakeNode | undefined {
  for (const child of root.children) {
    if (!(child instanceof FakeElement)) continue;
    if (test(child)) return child;
    const found = findNode(child, test);
    if (found) return found;
  }
  return undefined;
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
 * `base + "/" + hash`: its fetches go to the real server with the headers the
 * script sets (a browser adds no Authorization of its own). Only the DOM is
 * stubbed, and only as far as the script touches it.
 */
export function visitDashboard(html: string, base: string, hash: string, session = new Map<string, string>()): DashboardVisit {
  const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1];
  if (!script) throw new Error("the dashboard page has no script");
  const elements = new Map<string, FakeElement>();
  const element = (id: string) => elements.get(id) ?? elements.set(id, new FakeElement()).get(id) as FakeElement;
  const location = { pathname: "/", hash };
  const requests: DashboardVisit["requests"] = [];
  const browserFetch = (path: string, init: RequestInit = {}) => {
    const sent = fetch(`${base}${path}`, init).then((response) => {
      requests.push({ path, authorization: new Headers(init.headers).get("authorization"), status: response.status });
      return response;
    });
    return sent;
  };
  runInNewContext(script, {
    document: { getElementById: element, createElement: () => new FakeElement(), querySelectorAll: () => [] },
    sessionStorage: { getItem: (key: string) => session.get(key) ?? null, setItem: (key: string, value: string) => session.set(key, value) },
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
