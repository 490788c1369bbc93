import type { TraceWriter } from "@rein/trace";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ModelRequest } from "../src/model-provider.ts";
import { afterEach, beforeEach } from "vitest";
import { fixtureAround, liveView } from "@rein/contracts/testing";
import { FakeServer, recordingRetry } from "../src/testing/index.ts";

const fixturesDir = fileURLToPath(new URL("./fixtures/", import.meta.url));

/** A wire-format fixture (JSON or SSE) written from the providers' public documentation. */
export function fixture(name: string): string {
  return readFileSync(`${fixturesDir}${name}`, "utf8");
}

export function jsonFixture(name: string): unknown {
  return JSON.parse(fixture(name));
}

/** The request most adapter tests send: the worker's system prompt and one user turn. */
export const workerRequest: ModelRequest = {
  role: "worker",
  system: "You are the worker.",
  messages: [{ role: "user", content: [{ type: "text", text: "Do the step." }] }],
};

export interface FakeWire {
  /** A fake provider server, its API under the path given. */
  readonly server: FakeServer;
  /** A retry policy that records its waits instead of sleeping. */
  readonly retry: ReturnType<typeof recordingRetry>;
}

/** A fake provider server (its API under `path`) for each test of the `describe` that calls this, stopped after it. */
export function fakeServerPerTest(path?: string): Pick<FakeWire, "server"> {
  return liveView(
    fixtureAround(
      beforeEach,
      afterEach,
      "the fake provider server",
      async () => ({ server: await new FakeServer().start(path) }),
      ({ server }) => server.stop(),
    ),
    ["server"],
  );
}

/** For each test of the `describe` that calls this: a fake provider server (its API under `path`) and a retry policy of `maxRetries` retries; the server is stopped after the test. */
export function fakeWirePerTest(maxRetries: number, path?: string): FakeWire {
  return providerOnFakeWire(maxRetries, path, () => undefined);
}

/**
 * For each test of the `describe` that calls this: a fake provider server
 * (its API under `path`), a retry policy of `maxRetries` retries, and the
 * provider `make` builds on them; the server is stopped after the test.
 */
export function providerOnFakeWire<P>(
  maxRetries: number,
  path: string | undefined,
  make: (wire: FakeWire) => P,
): FakeWire & { readonly provider: P } {
  const current = fixtureAround(
    beforeEach,
    afterEach,
    "the provider's fake server",
    async () => {
      const wire = { server: await new FakeServer().start(path), retry: recordingRetry(maxRetries) };
      return { ...wire, provider: make(wire) };
    },
    ({ server }) => server.stop(),
  );
  return liveView(current, ["server", "retry", "provider"]);
}

/** A trace writer that keeps what it is given, so a test can read what a call recorded. */
export class MemoryTrace implements TraceWriter {
  readonly events: Parameters<TraceWriter["append"]>[0][] = [];
  async append(input: Parameters<TraceWriter["append"]>[0]): Promise<unknown> {
    this.events.push(input);
    return input;
  }
  async putBlobs(): Promise<void> {}
}
