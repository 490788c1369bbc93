import { createServer, type Server } from "node:http";
import { isIP } from "node:net";
import { ReinError } from "@rein/contracts";
import { collectDefaultMetrics, Registry } from "prom-client";

export interface ProcessMetricsOptions {
  /** 0 to 65535; 0 takes any free port. */
  port: number;
  /** @defaultValue 127.0.0.1 */
  host?: string;
  /** The roles this process runs: a `roles` label on every series, so a scrape says whose process it was. */
  roles: readonly string[];
}

/**
 * `rein worker --metrics-port`: this process's own metrics (prom-client's
 * default set: CPU, memory, heap, event loop lag, handles, GC) on
 * `GET /metrics`. The deployment's work is counted by `rein serve --http`'s
 * `/metrics` from Redis; this is what only the process itself knows. It
 * carries no run data, so it takes no token; bind it where Prometheus, not
 * the world, can reach it.
 */
export async function serveProcessMetrics(options: ProcessMetricsOptions): Promise<{ server: Server; url: string }> {
  const host = options.host ?? "127.0.0.1";
  const registry = new Registry();
  registry.setDefaultLabels({ roles: options.roles.join(",") });
  collectDefaultMetrics({ register: registry, prefix: "rein_process_" });
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (request.method !== "GET" || path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("only GET /metrics is served here\n");
      return;
    }
    registry.metrics().then(
      (body) => {
        response.writeHead(200, { "content-type": registry.contentType });
        response.end(body);
      },
      (error: unknown) => {
        response.writeHead(500, { "content-type": "text/plain" });
        response.end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new ReinError("config_invalid", `--metrics-port ${options.port}: cannot listen on ${host}: ${error.message}`, { cause: error }),
      ),
    );
    server.listen(options.port, host, resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return { server, url: `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}/metrics` };
}
