// Makes sure a Redis answers for the tests: REDIS_URL when set, else
// 127.0.0.1:6379, starting a local redis-server there when none answers.
import { spawnSync } from "node:child_process";
import { connect } from "node:net";

function ping(host, port, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

export async function ensureRedis() {
  const url = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const host = url.hostname;
  const port = Number(url.port || 6379);
  if (await ping(host, port)) return url.href;
  if (process.env.REDIS_URL) throw new Error(`REDIS_URL=${process.env.REDIS_URL} does not answer`);
  const started = spawnSync("redis-server", ["--daemonize", "yes", "--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"], {
    stdio: "inherit",
  });
  if (started.error) throw new Error("no Redis answers on 127.0.0.1:6379 and redis-server is not installed (apt-get install redis-server)");
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (await ping(host, port)) return url.href;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("started redis-server but it does not answer on 127.0.0.1:6379");
}
