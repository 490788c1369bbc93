/**
 * The sre-triage example's tools: four read-only views over the incident
 * data shipped in ./data (a frozen ten-minute window ending at the data's
 * `now`), and restart_service, which changes the world and so always needs a
 * person's approval. The restart only records itself in the run's
 * workspace: the example has no real service to restart.
 */
import { readFile, appendFile } from "node:fs/promises";
import { join } from "node:path";
// Examples are not workspace packages; the tool kit's entry (and the zod it re-exports) is imported by path.
import { type AnyTool, defineTool, z } from "../../packages/tools/src/index.ts";

const DATA = join(import.meta.dirname, "data");
const SERVICES = ["payment-api"] as const;
const Service = z.enum(SERVICES).describe("the service to look at");

const readJson = async <T>(file: string, schema: z.ZodType<T>): Promise<T> => schema.parse(JSON.parse(await readFile(join(DATA, file), "utf8")));
const minutesBefore = (now: string, minutes: number): number => Date.parse(now) - minutes * 60_000;
const LOG_NOW = "2026-11-30T10:10:00Z";

const searchLogs = defineTool({
  name: "search_logs",
  description: "Search a service's logs in a recent window. Read-only. Returns the matching lines, oldest first.",
  effect: "read",
  input: z.object({
    service: Service,
    since_minutes: z.number().int().positive().max(60).default(10),
    levels: z.array(z.enum(["ERROR", "WARN", "INFO"])).default(["ERROR", "WARN"]),
    contains: z.string().optional().describe("only lines containing this text (case-insensitive)"),
    limit: z.number().int().positive().max(200).default(40),
  }),
  async run(args) {
    const from = minutesBefore(LOG_NOW, args.since_minutes);
    const lines = (await readFile(join(DATA, `${args.service}.log`), "utf8")).split("\n").filter(Boolean);
    const matching = lines.filter((line) => {
      const [stamp = "", level = ""] = line.split(/\s+/);
      return Date.parse(stamp) >= from && args.levels.includes(level as "ERROR") && (!args.contains || line.toLowerCase().includes(args.contains.toLowerCase()));
    });
    return { window: `last ${args.since_minutes} minutes before ${LOG_NOW}`, matched: matching.length, lines: matching.slice(0, args.limit) };
  },
  render: (output) => [`${output.matched} matching log lines (${output.window}):`, ...output.lines].join("\n"),
});

const Point = z.tuple([z.string(), z.number()]);
const Metrics = z.object({ service: z.string(), now: z.string(), step_seconds: z.number(), series: z.record(z.string(), z.array(Point)) });

const queryMetrics = defineTool({
  name: "query_metrics",
  description: "Read a service's metrics (one point per minute). Read-only. Metrics: http_5xx_rate, http_requests_per_s, p99_latency_ms, db_pool_in_use, db_pool_max, db_pool_waiting, db_server_cpu_pct.",
  effect: "read",
  input: z.object({ service: Service, metrics: z.array(z.string()).min(1), minutes: z.number().int().positive().max(30).default(15) }),
  async run(args) {
    const data = await readJson("metrics.json", Metrics);
    const from = minutesBefore(data.now, args.minutes);
    const unknown = args.metrics.filter((name) => !data.series[name]);
    if (unknown.length > 0) throw new Error(`unknown metric ${unknown.join(", ")}; expected some of ${Object.keys(data.series).join(", ")}`);
    return args.metrics.map((name) => ({ name, points: (data.series[name] ?? []).filter(([stamp]) => Date.parse(stamp) >= from) }));
  },
  render: (output) =>
    output.map(({ name, points }) => `${name}: ${points.map(([stamp, value]) => `${stamp.slice(11, 16)}=${value}`).join(" ")}`).join("\n"),
});

const Deployments = z.object({
  now: z.string(),
  deployments: z.array(z.object({ service: z.string(), version: z.string(), deployedAt: z.string(), by: z.string(), change: z.string() })),
});

const inspectDeployments = defineTool({
  name: "inspect_deployments",
  description: "List a service's deployments in a recent window, and its latest one. Read-only.",
  effect: "read",
  input: z.object({ service: Service, hours: z.number().int().positive().max(168).default(24) }),
  async run(args) {
    const data = await readJson("deployments.json", Deployments);
    const mine = data.deployments.filter((deployment) => deployment.service === args.service).sort((a, b) => b.deployedAt.localeCompare(a.deployedAt));
    const from = minutesBefore(data.now, args.hours * 60);
    return { window: `last ${args.hours} hours before ${data.now}`, recent: mine.filter((deployment) => Date.parse(deployment.deployedAt) >= from), latest: mine[0] ?? null };
  },
  render: (output) =>
    [
      output.recent.length === 0 ? `no deployments of this service in the ${output.window}` : `${output.recent.length} deployment(s) in the ${output.window}:`,
      ...output.recent.map((deployment) => `- ${deployment.version} at ${deployment.deployedAt} by ${deployment.by}: ${deployment.change}`),
      output.latest ? `latest deployment: ${output.latest.version} at ${output.latest.deployedAt} (${output.latest.change})` : "never deployed",
    ].join("\n"),
});

const Hosts = z.object({
  now: z.string(),
  hosts: z.array(
    z.object({
      host: z.string(),
      service: z.string(),
      process: z.string(),
      uptimeHours: z.number(),
      cpuPct: z.number(),
      memPct: z.number(),
      diskPct: z.number(),
      dbConnectionsOpen: z.number(),
      dbConnectionsMax: z.number(),
    }),
  ),
});

const readHostState = defineTool({
  name: "read_host_state",
  description: "Read the state of a service's hosts: process, uptime, CPU, memory, disk, open DB connections. Read-only.",
  effect: "read",
  input: z.object({ service: Service }),
  async run(args) {
    return (await readJson("hosts.json", Hosts)).hosts.filter((host) => host.service === args.service);
  },
  render: (hosts) =>
    [
      `${hosts.length} host(s), all processes ${hosts.every((host) => host.process === "running") ? "running" : "NOT all running"}:`,
      ...hosts.map(
        (host) =>
          `- ${host.host}: ${host.process}, up ${host.uptimeHours} h, cpu ${host.cpuPct}%, mem ${host.memPct}%, disk ${host.diskPct}%, db connections ${host.dbConnectionsOpen}/${host.dbConnectionsMax}`,
      ),
    ].join("\n"),
});

const restartService = defineTool({
  name: "restart_service",
  description: "Restart every instance of a service (rolling). Destructive: in-flight requests are dropped. Always needs a person's approval.",
  effect: "destructive",
  approval: "always",
  input: z.object({ service: Service, reason: z.string().min(5) }),
  scope: (args) => ({ services: [args.service] }),
  async run(args, context) {
    const line = `${new Date().toISOString()} restarted ${args.service} (${context.idempotencyKey}): ${args.reason}\n`;
    await appendFile(await context.workspace.resolve("restarts.log"), line);
    return `rolling restart of ${args.service} completed on 2 hosts`;
  },
});

export const tools: AnyTool[] = [searchLogs, queryMetrics, inspectDeployments, readHostState, restartService];
