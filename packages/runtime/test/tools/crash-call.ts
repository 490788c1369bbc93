import type { ModelToolCall } from "@rein/tools";

export const CRASH_SURFACE = [{ name: "run_command", scope: { commands: ["node"] } }];

/** Appends one line to effects.txt (the countable effect), then takes far longer than the test waits. */
export function crashCall(): ModelToolCall {
  const script = "require('fs').appendFileSync('effects.txt','x\\n');setTimeout(()=>{},120000)";
  return { type: "tool_call", id: "call_crash", name: "run_command", input: { command: "node", args: ["-e", script] } };
}
