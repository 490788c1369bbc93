import { parseArgs } from "node:util";
import type { CommandEntry } from "./commands.ts";
import { err, out } from "./output.ts";
import { COMMANDS } from "./registry.ts";

const HELP = `rein — a harness for multi-agent work

Usage: rein <command> [options]

${COMMANDS.map((command) => (command.usage.length <= 52 ? `  ${command.usage.padEnd(52)} ${command.summary}` : `  ${command.usage}\n  ${"".padEnd(52)} ${command.summary}`)).join("\n")}

Every command takes --config FILE (default: ./rein.config.json when present).
Logs (pino JSON) go to stderr, never to stdout, or with --log-file PATH to that file (appended).
Their level is REIN_LOG_LEVEL (fatal, error, warn, info, debug, trace, silent), else info for
rein serve, rein worker and any --log-file, else warn.
Redis, the same for every command: --redis URL, else REDIS_URL, else the config's redisUrl,
else redis://127.0.0.1:6379 (\`rein run\` starts a private one when that does not answer).`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    out(HELP);
    return name ? 0 : 2;
  }
  const command: CommandEntry | undefined = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    err(`rein: unknown command "${name}"; expected one of: ${COMMANDS.map((candidate) => candidate.name).join(", ")}`);
    return 2;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, config: { type: "string" }, redis: { type: "string" }, "log-file": { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    err(`rein ${name}: ${error instanceof Error ? error.message : String(error)}\nusage: rein ${command.usage}`);
    return 2;
  }
  if (parsed.values.help) {
    out(`usage: rein ${command.usage}\n${command.summary}`);
    return 0;
  }
  try {
    const [loaded, { logLevelFrom }] = await Promise.all([command.load(), import("@rein/core")]);
    // Checked before any work, for every command, so a mistyped level is one clear line.
    logLevelFrom(process.env, "warn");
    return await loaded.run(parsed.positionals, parsed.values);
  } catch (error) {
    // Loaded here, not at the top: `rein --help` then starts without @rein/core (every command module imports it anyway).
    const { ReinError } = await import("@rein/core");
    if (ReinError.isInstance(error)) {
      err(`rein ${name}: ${error.message}`);
      return ["goal_invalid", "config_invalid", "not_found", "workspace_invalid"].includes(error.code) ? 2 : 1;
    }
    err(`rein ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
