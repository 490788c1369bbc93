import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One host (and port) a sandboxed program may reach through the proxy. */
export interface NetworkGrant {
  host: string;
  port: number;
}

export interface FilteringProxy {
  /** The unix socket to bind into the sandbox. */
  socketPath: string;
  /** `host:port` targets the proxy refused, in order, for the trace. */
  refused: string[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy on a unix socket outside the sandbox: CONNECT tunnels and
 * absolute-URI requests reach only the granted host:port pairs; anything
 * else gets 403 and is recorded. The sandbox has no network of its own, so
 * this socket is its only way out.
 */
export async function startFilteringProxy(grants: readonly NetworkGrant[]): Promise<FilteringProxy> {
  const dir = await mkdtemp(join(tmpdir(), "rein-proxy-"));
  const socketPath = join(dir, "proxy.sock");
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const allowed = (host: string, port: number) =>
    grants.some((grant) => grant.host === host.toLowerCase().replace(/\.$/, "") && grant.port === port);

  const server = createServer((request, response) => {
    let target: URL;
    try {
      target = new URL(request.url ?? "");
    } catch {
      response.writeHead(400).end("expected an absolute URL\n");
      return;
    }
    const port = Number(target.port || 80);
    if (target.protocol !== "http:" || !allowed(target.hostname, port)) {
      refused.push(`${target.hostname}:${port}`);
      response.writeHead(403).end(`rein sandbox: ${target.hostname}:${port} is not granted\n`);
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port, method: request.method, path: `${target.pathname}${target.search}`, headers: request.headers },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(response);
      },
    );
    upstream.on("error", () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  server.on("connect", (request, client: Socket, head: Buffer) => {
    const [host = "", portText = ""] = splitHostPort(request.url ?? "");
    const port = Number(portText);
    if (!allowed(host, port)) {
      refused.push(`${host}:${portText}`);
      client.end(`HTTP/1.1 403 Forbidden\r\n\r\nrein sandbox: ${host}:${portText} is not granted\n`);
      return;
    }
    const upstream = connect(port, host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(socketPath, resolveListen);
  });
  return {
    socketPath,
    refused,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `host:port` or `[v6]:port`. */
function splitHostPort(target: string): [string, string] {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(target);
  if (bracketed) return [bracketed[1] ?? "", bracketed[2] ?? ""];
  const colon = target.lastIndexOf(":");
  return colon < 0 ? [target, ""] : [target.slice(0, colon), target.slice(colon + 1)];
}
