import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { Redis } from "@rein/runtime";

export interface ScriptCost {
  /** BullMQ's name for its script, or the shape of the keys a Rein script is called on. */
  name: string;
  callsPerRun: number;
  /** Redis's own time per call, the script's inner commands included. */
  microsPerCall: number;
}

type SlowlogEntry = [id: number, at: number, micros: number, args: string[]];

// BullMQ sends its scripts by the SHA1 of these bodies; `dist/cjs/scripts` lists them with their names.
const bullmqScripts = createRequire(import.meta.url)("bullmq/dist/cjs/scripts/index.js") as Record<
  string,
  { name?: string; content?: string }
>;
const bullmqNames = new Map(
  Object.values(bullmqScripts)
    .filter((script) => script.name !== undefined && script.content !== undefined)
    .map((script) => [
      createHash("sha1")
        .update(script.content as string)
        .digest("hex"),
      `bullmq ${script.name}`,
    ]),
);

/**
 * `npm run load -- --scripts`: what each Lua script costs Redis, read from
 * SLOWLOG at threshold 0 over the measured window (every command is logged,
 * with its duration inside Redis). A diagnosis, not a measurement: logging
 * every command costs Redis CPU too, so read the split, not the total.
 */
export async function recordScriptCosts(admin: Redis): Promise<{ finish(runs: number): Promise<ScriptCost[]> }> {
  const [, threshold] = (await admin.config("GET", "slowlog-log-slower-than")) as [string, string];
  const [, maxLength] = (await admin.config("GET", "slowlog-max-len")) as [string, string];
  await admin.config("SET", "slowlog-max-len", "5000000");
  await admin.config("SET", "slowlog-log-slower-than", "0");
  await admin.slowlog("RESET");
  return {
    async finish(runs) {
      const entries = (await admin.slowlog("GET", "-1")) as SlowlogEntry[];
      await admin.config("SET", "slowlog-log-slower-than", threshold);
      await admin.config("SET", "slowlog-max-len", maxLength);
      await admin.slowlog("RESET");
      const byName = new Map<string, { calls: number; micros: number }>();
      for (const [, , micros, args] of entries) {
        const name = scriptName(args);
        if (name === undefined) continue;
        const cost = byName.get(name) ?? { calls: 0, micros: 0 };
        byName.set(name, { calls: cost.calls + 1, micros: cost.micros + micros });
      }
      return [...byName]
        .map(([name, { calls, micros }]) => ({ name, callsPerRun: calls / Math.max(1, runs), microsPerCall: micros / calls }))
        .sort((a, b) => b.callsPerRun * b.microsPerCall - a.callsPerRun * a.microsPerCall);
    },
  };
}

/** The name of a script call (BullMQ's own, else the kinds of keys a Rein script is called on); undefined for any other command. */
export function scriptName(args: readonly string[]): string | undefined {
  const [command, sha, keyCount] = args;
  if (command?.toLowerCase() === "eval") return "a script sent as its body (EVAL)";
  if (command?.toLowerCase() !== "evalsha" || sha === undefined) return undefined;
  const known = bullmqNames.get(sha);
  if (known !== undefined) return known;
  // Rein's scripts have no name on the wire: the kinds of keys they touch say which one it is.
  const keys = args.slice(3, 3 + Math.min(3, Number(keyCount ?? 0)));
  return `rein on ${keys.map(keyKind).join(", ")}`;
}

/** `<prefix>:trace-seq:{run_x}` → `trace-seq`; `<prefix>:checkpoint:{run_x}:s1:owner` → `checkpoint:owner`. */
function keyKind(key: string): string {
  const parts = key.split(":").slice(1);
  return parts.filter((part) => !part.startsWith("{") && !/^s\d+$/.test(part) && !/run_/.test(part)).join(":");
}
