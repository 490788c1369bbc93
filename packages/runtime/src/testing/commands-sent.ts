import { vi } from "vitest";
import type { RedisClient } from "../redis/redis-client.ts";

/** A command as a connection sent it: its name in lower case and its arguments as strings. */
export interface SentCommand {
  name: string;
  args: string[];
}

/**
 * The commands `redis` sends while `work` runs, in order; each is still
 * sent. Connect first: a command sent while connecting reaches
 * `sendCommand` again once connected, and would be counted twice.
 */
export async function commandsSent(redis: RedisClient, work: () => Promise<unknown>): Promise<SentCommand[]> {
  const sent: SentCommand[] = [];
  const send = redis.sendCommand.bind(redis);
  const spy = vi
    .spyOn(redis, "sendCommand")
    .mockImplementation((command: Parameters<typeof send>[0], stream?: Parameters<typeof send>[1]) => {
      sent.push({ name: command.name.toLowerCase(), args: command.args.map(String) });
      return send(command, stream);
    });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return sent;
}
