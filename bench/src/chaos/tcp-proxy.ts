import { createServer, type Server, type Socket, connect } from "node:net";
import { freePort } from "@rein/orchestrator";

interface Pair {
  client: Socket;
  upstream: Socket;
}

/**
 * A TCP proxy between one process and Redis that the suite controls: a
 * partition (`partition()` … `heal()`) stops carrying bytes both ways without
 * closing anything, as a network that drops packets does to a TCP connection
 * (what was sent arrives when it heals); `cut()` resets every connection.
 */
export class TcpProxy {
  readonly #pairs = new Set<Pair>();
  #partitioned = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const port = await freePort();
    const server = createServer();
    const proxy = new TcpProxy(server, port);
    server.on("connection", (client) => proxy.#accept(client, targetPort));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  partition(): void {
    this.#partitioned = true;
    for (const pair of this.#pairs) this.#stop(pair);
  }

  heal(): void {
    this.#partitioned = false;
    for (const pair of this.#pairs) this.#carry(pair);
  }

  cut(): void {
    for (const { client, upstream } of this.#pairs) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    this.#pairs.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #accept(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, "127.0.0.1");
    const pair = { client, upstream };
    this.#pairs.add(pair);
    const drop = () => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    if (this.#partitioned) this.#stop(pair);
    else this.#carry(pair);
  }

  #carry({ client, upstream }: Pair): void {
    client.pipe(upstream);
    upstream.pipe(client);
  }

  #stop({ client, upstream }: Pair): void {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  }
}
