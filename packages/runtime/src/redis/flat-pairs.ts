import { ReinError } from "@rein/contracts";

/**
 * A flat Redis reply of keys and values in turn (`ZRANGE … WITHSCORES`, a
 * stream entry's fields) as pairs. A key without its value is a
 * `contract_invalid` error naming `what` was read.
 */
export function flatPairs(reply: readonly string[], what: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (let index = 0; index < reply.length; index += 2) {
    const key = reply[index];
    const value = reply[index + 1];
    if (key === undefined || value === undefined)
      throw new ReinError("contract_invalid", `${what}: ${JSON.stringify(key)} has no value; expected keys and values in turn`);
    pairs.push([key, value]);
  }
  return pairs;
}
