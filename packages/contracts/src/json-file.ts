import { readFileSync } from "node:fs";
import { ReinError } from "./errors.ts";

/** The JSON value in the file at `path`, still to be parsed; a `config_invalid` error naming `what` when it cannot be read or is not JSON. */
export function readJsonFile(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ReinError("config_invalid", `cannot read ${what} ${path}: expected a JSON file`, { cause: error });
  }
}
