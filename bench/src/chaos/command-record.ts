import { createWriteStream } from "node:fs";
import { connectRedis } from "@rein/runtime";
import { scriptName } from "./script-costs.ts";

export interface ScriptCommands {
  /** A script's name as `--scripts` gives it, or the commands sent outside any script. */
  name: string;
  callsPerRun: number;
  /** The call itself and the commands the script ran. */
  commandsPerCall: number;
}

export const OUTSIDE_SCRIPTS = "outside scripts";

/**
 * `npm run load -- --monitor FILE`: every command Redis runs, one line each,
 * and the commands per run by the Lua script that ran them (MONITOR lists a
 * script's own commands right after its call). MONITOR slows Redis: read the
 * split, not the speed.
 */
export async function recordCommands(url: string, file: string): Promise<{ finish(runs: number): Promise<ScriptCommands[]> }> {
  const out = createWriteStream(file);
  const counts = new Map<string, { calls: number; commands: number }>();
  let current: { calls: number; commands: number } | undefined;
  // MONITOR takes a connection of its own; the client it is made from is closed with it.
  const client = connectRedis(url);
  const monitor = await client.monitor();
  monitor.on("monitor", (time: string, args: string[], source: string) => {
    if (out.writableEnded) return;
    out.write(`${time} ${source} ${args.map((arg) => (arg.length > 80 ? `${arg.slice(0, 80)}…` : arg)).join(" ")}\n`);
    if (source === "lua") {
      if (current) current.commands += 1;
      return;
    }
    const name = scriptName(args) ?? OUTSIDE_SCRIPTS;
    current = counts.get(name) ?? { calls: 0, commands: 0 };
    counts.set(name, current);
    current.calls += 1;
    current.commands += 1;
  });
  return {
    async finish(runs) {
      await new Promise((resolve) => out.end(resolve));
      monitor.disconnect();
      client.disconnect();
      return [...counts]
        .map(([name, { calls, commands }]) => ({ name, callsPerRun: calls / Math.max(1, runs), commandsPerCall: commands / calls }))
        .sort((a, b) => b.callsPerRun * b.commandsPerCall - a.callsPerRun * a.commandsPerCall);
    },
  };
}
