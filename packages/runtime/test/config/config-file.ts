import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";

/** Writes `content` (JSON text as given, or a value as indented JSON) to a fresh rein.config.json; returns its path. */
export function configFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "rein-config-")), "rein.config.json");
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
}

/** The config error `run` throws; anything else it throws, or its not throwing, fails the test. */
export function failure(run: () => unknown): ReinError {
  try {
    run();
  } catch (error) {
    if (ReinError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a config error");
}
