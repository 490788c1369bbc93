import { errorMessage, ReinError } from "@rein/contracts";
import { connectMcpServer } from "@rein/mcp";
import { loadConfig, secretsAndRedactor } from "@rein/runtime";
import { type McpServerState, readMcpStatus, mcpSandboxing } from "@rein/controller";
import { contextFlags, openContext } from "./cli-context.ts";
import type { CommandHandler, ParsedFlags } from "./command-spec.ts";
import type { MCP } from "./command-specs.ts";
import { out } from "./output.ts";

export const mcpCommand: CommandHandler<typeof MCP> = async (args, flags) =>
  args.subcommand === "list" ? listServers(flags) : checkServer(args.name, flags.config);

/** Each configured server with what every running Rein process on this prefix reports about it. */
async function listServers(flags: ParsedFlags<typeof MCP>): Promise<number> {
  const context = await openContext({ ...contextFlags(flags) });
  try {
    const published = await readMcpStatus(context.runtime);
    const rows = context.config.mcp.map((server) => ({
      name: server.name,
      command: server.url ?? [server.command, ...server.args].join(" "),
      required: server.required,
      reports: published.flatMap((report) =>
        report.servers.filter((state) => state.server === server.name).map((state) => ({ process: report.process, ...state })),
      ),
    }));
    if (flags.json) {
      out(JSON.stringify(rows, null, 2));
      return rows.some((row) => row.reports.some((report) => report.state === "failed")) ? 1 : 0;
    }
    if (rows.length === 0)
      out('no MCP servers configured; add { "mcp": [{ "name": "…", "command": "…" }] } to rein.config.json (docs/mcp.md)');
    for (const row of rows) {
      out(`${row.name}${row.required ? " (required)" : ""}  ${row.command}`);
      if (row.reports.length === 0) out("  state: not running in any Rein process on this prefix (servers start with a step worker)");
      for (const report of row.reports) {
        out(
          `  ${report.process}: ${report.state}${report.error ? `: ${report.error}` : ""}${report.health ? `, ${describeHealth(report.health)}` : ""}`,
        );
        if (report.tools.length > 0) out(`    tools: ${report.tools.join(", ")}`);
        for (const { tool, reason } of report.withheld) out(`    not offered: ${tool}: ${reason}`);
      }
    }
    return rows.some((row) => row.reports.some((report) => report.state === "failed")) ? 1 : 0;
  } finally {
    await context.close();
  }
}

/** Starts one configured server here, lists its tools and stops it; a failure prints its command, exit code and stderr. No Redis is needed. */
async function checkServer(name: string, configFile: string | undefined): Promise<number> {
  const config = loadConfig({ file: configFile });
  const server = config.mcp.find((entry) => entry.name === name);
  if (!server) {
    const known = config.mcp.map((entry) => entry.name);
    throw new ReinError(
      "goal_invalid",
      `no MCP server named ${name} in config mcp; expected one of: ${known.join(", ") || "(none configured)"}`,
    );
  }
  const { secrets, redactor } = secretsAndRedactor(config, process.env);
  out(server.url ? `url: ${server.url}` : `command: ${[server.command, ...server.args].join(" ")}`);
  const started = performance.now();
  try {
    const connection = await connectMcpServer(server, { ...mcpSandboxing(config), secrets, redactor });
    try {
      out(`start + initialize + tools/list: ok in ${Math.round(performance.now() - started)} ms, ${connection.tools.length} tool(s)`);
      for (const tool of connection.tools) out(`  ${tool.name} (${tool.effect}${tool.approval === "always" ? ", approval always" : ""})`);
      for (const { tool, reason } of connection.withheld) out(`  not offered: ${tool}: ${reason}`);
      return 0;
    } finally {
      await connection.close();
    }
  } catch (error) {
    out(`start: FAILED: ${errorMessage(error)}`);
    return 1;
  }
}

function describeHealth(health: NonNullable<McpServerState["health"]>): string {
  const exit = health.lastExit;
  const ended = exit
    ? `, last exit ${exit.killedFor ? `killed (${exit.killedFor})` : exit.signal ? `signal ${exit.signal}` : `code ${exit.exitCode}`}`
    : "";
  return `process ${health.state}, breaker ${health.breaker}, restarts ${health.restarts}, ${health.inFlight} in flight${ended}`;
}
