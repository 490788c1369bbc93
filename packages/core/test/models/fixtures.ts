import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const fixturesDir = fileURLToPath(new URL("./fixtures/", import.meta.url));

/** A wire-format fixture (JSON or SSE) written from the providers' public documentation. */
export function fixture(name: string): string {
  return readFileSync(`${fixturesDir}${name}`, "utf8");
}

export function jsonFixture(name: string): unknown {
  return JSON.parse(fixture(name));
}
