import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ModelRequest } from "../../src/models/model-provider.ts";
import { FakeServer, recordingRetry } from "../../src/testing/index.ts";

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

/** A fake provider server (its API under `path`) and a retry policy that records its waits instead of sleeping. */
export async function fakeServerAndRetry(maxRetries: number, path?: string): Promise<{ server: FakeServer; retry: ReturnType<typeof recordingRetry> }> {
  return { server: await new FakeServer().start(path), retry: recordingRetry(maxRetries) };
}
