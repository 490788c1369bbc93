import { customAlphabet } from "nanoid";
import { sha256 } from "./canonical-json.ts";

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
const random = customAlphabet(alphabet, 16);

/**
 * Ids carry a short prefix that says what they name (`run_…`, `obs_…`,
 * `lesson_…`). Step ids are the plan's own, so they have no kind here.
 */
export type IdKind = "run" | "obs" | "apr" | "art" | "lesson" | "call";

export function newId(kind: IdKind): string {
  return `${kind}_${random()}`;
}

/** The id the same seed always gives, for things that must not be recorded twice (a lesson drawn again from the same run). */
export function idFrom(kind: IdKind, seed: string): string {
  return `${kind}_${sha256(seed).slice(7, 23)}`;
}
