import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { fixtureAround, liveView } from "@rein/contracts/testing";
import { createHttpApi, type HttpApiOptions } from "../../src/api/http-api.ts";
import type { Harness } from "./harness.ts";

/** Starts `server` on a loopback port of its own: the port and the base URL to reach it. */
export async function listenOnLoopback(server: Server): Promise<{ port: number; base: string }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { port, base: `http://127.0.0.1:${port}` };
}

/** Stops `server` at once: open connections (event streams, keep-alives) are cut rather than waited for. */
export async function closeNow(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** The API's options over `harness`'s runtime, approvals, approval signer and tools; `more` adds tokens and the rest. */
function apiOptionsFor(harness: Harness, more: Partial<HttpApiOptions> = {}): HttpApiOptions {
  return {
    runtime: harness.runtime,
    approvals: harness.tooling.approvals,
    approvalSigner: harness.desk.signer,
    knownTools: harness.tooling.registry.names(),
    ...more,
  };
}

/** The HTTP API of `options`, listening on a loopback port of its own. */
export async function listenApi(options: HttpApiOptions): Promise<{ server: Server; port: number; base: string }> {
  const server = createHttpApi(options);
  return { server, ...(await listenOnLoopback(server)) };
}

export interface ApiOverHarness {
  readonly harness: Harness;
  readonly options: HttpApiOptions;
  readonly server: Server;
  readonly port: number;
  readonly base: string;
}

/**
 * For the tests of the `describe` that calls this: the harness `start`
 * makes, behind the HTTP API over it (apiOptionsFor, with `more`) on a
 * loopback port; after them, the API is stopped and the harness closed.
 */
export function apiOverHarnessPerFile(start: () => Promise<Harness>, more: Partial<HttpApiOptions> = {}): ApiOverHarness {
  const current = fixtureAround(
    beforeAll,
    afterAll,
    "the API and its harness",
    async () => {
      const harness = await start();
      const options = apiOptionsFor(harness, more);
      return { harness, options, ...(await listenApi(options)) };
    },
    async ({ server, harness }) => {
      await closeNow(server);
      await harness.close();
    },
  );
  return liveView(current, ["harness", "options", "server", "port", "base"]);
}
