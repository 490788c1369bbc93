import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
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
export function apiOptionsFor(harness: Harness, more: Partial<HttpApiOptions> = {}): HttpApiOptions {
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
