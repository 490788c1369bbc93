import { cp, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { errorMessage, ReinError } from "@rein/contracts";
import { createLogger } from "@rein/guard";
import { loadPlugin, type LoadedPlugin, PluginHost } from "@rein/plugins";
import { loadConfig, secretsAndRedactor } from "@rein/runtime";
import { resolveSandbox } from "@rein/sandbox";
import { z } from "@rein/tools";
import { type PublishedPlugin, readPluginStatus } from "@rein/controller";
import { contextFlags, openContext } from "./cli-context.ts";
import type { CommandHandler, ParsedFlags } from "./command-spec.ts";
import type { PLUGINS } from "./command-specs.ts";
import { out } from "./output.ts";

const PREVIEW_LINES = 8;

export const pluginsCommand: CommandHandler<typeof PLUGINS> = async (args, flags) =>
  args.subcommand === "list" ? listPlugins(flags) : checkPlugin(args.dir, flags.config, flags.workspace);

/** Each configured plugin from its manifest, with what every running Rein process on this prefix reports about it. */
async function listPlugins(flags: ParsedFlags<typeof PLUGINS>): Promise<number> {
  const context = await openContext({ ...contextFlags(flags) });
  try {
    const published = await readPluginStatus(context.runtime);
    const rows: Array<{
      path: string;
      enabled: boolean;
      manifest?: LoadedPlugin["manifest"];
      error?: string;
      reports: Array<{ process: string; status: PublishedPlugin }>;
    }> = [];
    for (const entry of context.config.plugins) {
      try {
        const { manifest } = await loadPlugin(entry.path);
        const reports = published.flatMap((report) =>
          report.plugins.filter((status) => status.name === manifest.name).map((status) => ({ process: report.process, status })),
        );
        rows.push({ path: entry.path, enabled: entry.enabled, manifest, reports });
      } catch (error) {
        rows.push({ path: entry.path, enabled: entry.enabled, error: errorMessage(error), reports: [] });
      }
    }
    if (flags.json) {
      out(
        JSON.stringify(
          rows.map(({ manifest, ...row }) => ({
            ...row,
            name: manifest?.name,
            version: manifest?.version,
            tools: manifest?.tools.map((tool) => tool.name),
          })),
          null,
          2,
        ),
      );
    } else if (rows.length === 0) {
      out('no plugins configured; add { "plugins": [{ "path": "…" }] } to rein.config.json (docs/plugins.md)');
    }
    for (const row of flags.json ? [] : rows) {
      if (!row.manifest) {
        out(`${row.path}: INVALID: ${row.error}`);
        continue;
      }
      out(`${row.manifest.name} ${row.manifest.version}  ${row.enabled ? "enabled" : "disabled"}  ${row.manifest.mode}  ${row.path}`);
      out(`  tools: ${row.manifest.tools.map((tool) => `${tool.name} (${tool.effect})`).join(", ")}`);
      if (row.reports.length === 0) out("  state: not running in any Rein process on this prefix (processes start on first use)");
      for (const { process, status } of row.reports) {
        const running = status.processes.filter((entry) => entry.state === "running").length;
        out(
          `  ${process}: breaker ${status.breaker} (${status.recentFailures} recent failures), restarts ${status.restarts}, ${running} running process(es)`,
        );
        for (const entry of status.processes) {
          out(
            `    ${entry.runId}: ${entry.state}${entry.pid ? ` pid ${entry.pid}` : ""}, ${entry.inFlight} in flight, ${entry.queued} queued${entry.lastExit ? `, last exit ${describeExit(entry.lastExit)}` : ""}`,
          );
        }
      }
    }
    return rows.some((row) => row.error) ? 1 : 0;
  } finally {
    await context.close();
  }
}

function describeExit(exit: NonNullable<PublishedPlugin["processes"][number]["lastExit"]>): string {
  return exit.killedFor ? `killed (${exit.killedFor})` : exit.signal ? `signal ${exit.signal}` : `code ${exit.exitCode}`;
}

/**
 * Validates a plugin directory, starts it in the sandbox config chooses,
 * handshakes, pings, and calls each tool that has `example` arguments,
 * printing what it saw. No Redis is needed.
 */
async function checkPlugin(dir: string, configFile: string | undefined, files: string | undefined): Promise<number> {
  const config = loadConfig({ file: configFile });
  let plugin: LoadedPlugin;
  try {
    plugin = await loadPlugin(resolve(dir));
  } catch (error) {
    out(`manifest: INVALID: ${errorMessage(error)}`);
    return 1;
  }
  const { manifest } = plugin;
  out(
    `manifest: ok: ${manifest.name} ${manifest.version}, protocol ${manifest.protocol}, ${manifest.mode}, ${manifest.tools.length} tool(s): ${manifest.tools.map((tool) => tool.name).join(", ")}`,
  );
  const { secrets } = secretsAndRedactor(config, process.env);
  const bound = secrets.boundTo(`plugin:${manifest.name}`);
  const unbound = manifest.env.filter((name) => bound[name] === undefined);
  if (unbound.length > 0)
    out(`secrets: not given (declared, but not bound to plugin:${manifest.name} in config secrets or not set): ${unbound.join(", ")}`);
  if (manifest.hosts.length > 0) out(`network: only ${manifest.hosts.join(", ")}`);
  const sandbox = await resolveSandbox(config.sandbox, { limits: config.sandboxLimits });
  out(`sandbox: ${sandbox.kind}`);
  const workspace = await mkdtemp(join(tmpdir(), "rein-plugin-check-"));
  // A copy: the examples' calls may write, and your directory is not theirs to change.
  if (files !== undefined) {
    if (!(await stat(resolve(files)).catch(() => undefined))?.isDirectory())
      throw new ReinError("config_invalid", `--workspace ${files} is not a directory; expected the files the examples read`);
    await cp(resolve(files), workspace, { recursive: true });
  }
  out(`workspace: ${files === undefined ? "an empty directory" : `a copy of ${resolve(files)}`}`);
  const host = new PluginHost(plugin, { sandbox: async () => sandbox, hidden: [config.keysDir], secrets, logger: checkLogger() });
  let failures = 0;
  try {
    try {
      const started = performance.now();
      const probe = await host.probe(workspace);
      out(
        `start + handshake: ok in ${Math.round(performance.now() - started - probe.pingMs)} ms (pid ${probe.pid ?? "?"}), ready with every declared tool`,
      );
      out(`ping: ok in ${probe.pingMs} ms`);
    } catch (error) {
      out(`start + handshake: FAILED: ${errorMessage(error)}`);
      return 1;
    }
    for (const tool of manifest.tools) {
      if (!tool.example) {
        out(`call ${tool.name}: skipped (no example in plugin.json)`);
        continue;
      }
      const started = performance.now();
      try {
        const result = await host.call(tool.name, tool.example, { runId: "check", stepId: "check", workspaceRoot: workspace });
        const ms = Math.round(performance.now() - started);
        if (!result.ok) {
          failures += 1;
          out(
            `call ${tool.name} ${JSON.stringify(tool.example)}: answered an error in ${ms} ms: ${result.error.code}: ${result.error.message} (retryable: ${result.error.retryable})`,
          );
          continue;
        }
        const issues = plugin.checks.get(tool.name)?.output?.(result.output) ?? [];
        if (issues.length > 0) failures += 1;
        const verdict =
          issues.length === 0
            ? tool.output_schema
              ? "matches output_schema"
              : "no output_schema"
            : `BREAKS output_schema: ${issues.map((issue) => `${issue.path.join(".") || "(root)"} ${issue.message}`).join("; ")}`;
        out(`call ${tool.name} ${JSON.stringify(tool.example)}: ok in ${ms} ms, ${verdict}`);
        const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output, null, 2);
        const lines = text.split("\n");
        for (const line of lines.slice(0, PREVIEW_LINES)) out(`  | ${line}`);
        if (lines.length > PREVIEW_LINES) out(`  | … ${lines.length - PREVIEW_LINES} more line(s)`);
      } catch (error) {
        failures += 1;
        out(`call ${tool.name}: FAILED: ${errorMessage(error)}`);
      }
    }
    const status = host.status();
    out(`breaker: ${status.breaker}, restarts: ${status.restarts}`);
    out(failures === 0 ? "result: ok" : `result: ${failures} problem(s)`);
    return failures === 0 ? 0 : 1;
  } finally {
    await host.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

/** The fields of the plugin host's log lines that a check shows. */
const CheckLogRecord = z.object({
  msg: z.string().optional(),
  pluginLog: z.string().optional(),
  stderr: z.string().optional(),
  problem: z.string().optional(),
  id: z.string().optional(),
});

/** A pino line as the fields a check shows; undefined for a line that is not one of the plugin host's. */
function checkLogRecord(line: string): z.infer<typeof CheckLogRecord> | undefined {
  try {
    const parsed = CheckLogRecord.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The plugin's log lines and stderr, shown to the person checking it rather than kept in a log. */
function checkLogger() {
  return createLogger(
    { level: "debug" },
    {
      write(line: string) {
        const record = checkLogRecord(line);
        if (record?.pluginLog !== undefined) out(`  [plugin log] ${record.pluginLog}`);
        else if (record?.stderr !== undefined) out(`  [stderr] ${record.stderr}`);
        else if (record?.problem !== undefined) out(`  [protocol] ${record.problem}`);
        else if (record?.id !== undefined) out(`  [wire] ${record.msg} (id ${record.id})`);
      },
    },
  );
}
