import { hashOf, type ToolCallRecord } from "@rein/contracts";

/**
 * Fingerprints at three levels. A call's is computed by the executor
 * (sha256 of tool name + canonical args). A step attempt's is the hash of
 * its calls in order; a run's is the hash of its attempts' in order. Equal
 * step fingerprints mean an attempt did exactly what an earlier one did.
 */
export function stepFingerprint(calls: readonly Pick<ToolCallRecord, "fingerprint">[]): string {
  return hashOf(calls.map((call) => call.fingerprint));
}

export function runFingerprint(attempts: readonly (readonly string[])[]): string {
  return hashOf(attempts.map((fingerprints) => hashOf([...fingerprints])));
}
