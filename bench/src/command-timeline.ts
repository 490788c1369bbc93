import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";

/** One Redis command as this process sent it: when, on which connection, what, for which run, and when its reply came. */
export interface RecordedCommand {
  /** Epoch ms (performance.timeOrigin + now), comparable across the processes of one machine. */
  sent: number;
  replied?: number;
  connection: number;
  /** The command, or the BullMQ script an EVALSHA runs (`moveToActive`), or `turnWrite` / `compareAndSet` for Rein's. */
  name: string;
  /** The queue a BullMQ script works on, from its first key. */
  queue?: string;
  runId?: string;
}

interface Sendable {
  name: string;
  args: unknown[];
  promise: Promise<unknown>;
}

const RUN_ID = /run_[a-z0-9]{16}/;
const QUEUE_KEY = /\{queues\}:([a-z-]+):/;

/**
 * Diagnostics only (`REIN_BENCH_TIMELINE`): records every command any ioredis
 * connection of this process sends, and when its reply arrives, and writes
 * them to `<dir>/<pid>.json` when the process exits (or on `write`). Hooks the prototype's
 * `sendCommand`, which every command, piped or not, passes through (as the
 * bench's traffic counter does); it costs each command a few µs.
 */
export function recordCommands(dir: string): { write(): void } {
  const require = createRequire(import.meta.url);
  const bullmqEntry = require.resolve("bullmq");
  const redisModule = createRequire(bullmqEntry)("ioredis") as {
    default: { prototype: { sendCommand: (command: Sendable, ...rest: unknown[]) => unknown } };
  };
  const scripts = bullmqScriptNames(bullmqEntry);
  const prototype = redisModule.default.prototype;
  const send = prototype.sendCommand;
  const recorded: RecordedCommand[] = [];
  const connections = new WeakMap<object, number>();
  let opened = 0;
  prototype.sendCommand = function (this: object, command: Sendable, ...rest: unknown[]) {
    let connection = connections.get(this);
    if (connection === undefined) {
      opened += 1;
      connection = opened;
      connections.set(this, connection);
    }
    const entry: RecordedCommand = { sent: now(), connection, ...describe(command, scripts) };
    recorded.push(entry);
    command.promise.then(
      () => {
        entry.replied = now();
      },
      () => {
        entry.replied = now();
      },
    );
    return send.call(this, command, ...rest);
  };
  const write = () => writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(recorded));
  process.on("exit", write);
  return { write };
}

const now = () => performance.timeOrigin + performance.now();

function describe(command: Sendable, scripts: ReadonlyMap<string, string>): Omit<RecordedCommand, "sent" | "connection"> {
  const strings = command.args.map((arg) => (typeof arg === "string" ? arg : Buffer.isBuffer(arg) ? arg.toString("latin1") : String(arg)));
  const runId = strings.map((arg) => RUN_ID.exec(arg)?.[0]).find((found) => found !== undefined);
  const queue = QUEUE_KEY.exec(strings[2] ?? "")?.[1];
  let name = command.name;
  if (name === "evalsha")
    name =
      scripts.get(strings[0] ?? "") ??
      (strings.slice(2).some((arg) => arg.includes(":checkpoint:"))
        ? "turnWrite"
        : (strings[2] ?? "").includes(":run:{")
          ? "compareAndSet"
          : "evalsha");
  else if (name === "eval" && (strings[0] ?? "").includes("HMGET', KEYS[1], 'version'")) name = "compareAndSet";
  return { name, ...(queue ? { queue } : {}), ...(runId ? { runId } : {}) };
}

/** BullMQ's scripts by the SHA1 ioredis sends them under (`moveToActive`, `addStandardJob`, ...). */
function bullmqScriptNames(bullmqEntry: string): Map<string, string> {
  const require = createRequire(bullmqEntry);
  // By file path: the package's exports do not name its scripts.
  const all = require(join(dirname(bullmqEntry), "scripts", "index.js")) as Record<string, { name: string; content: string }>;
  return new Map(Object.values(all).map((script) => [createHash("sha1").update(script.content).digest("hex"), script.name]));
}
