import { customAlphabet } from "nanoid";

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
const random = customAlphabet(alphabet, 16);

/** Ids carry a short prefix that says what they name (`run_…`, `obs_…`). */
export type IdKind = "run" | "step" | "obs" | "apr" | "art" | "lsn" | "call";

export function newId(kind: IdKind): string {
  return `${kind}_${random()}`;
}
