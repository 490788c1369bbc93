import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LuaScript } from "../../src/redis/lua-script.ts";
import { testRuntimePerTest } from "../../src/testing/index.ts";

const fixture = testRuntimePerTest({ beforeEach, afterEach });

describe("LuaScript", () => {
  it("sends its body once, on a server that lacks it, and only its SHA1 after", async () => {
    const { runtime } = fixture;
    // A body no server has seen: the first call finds NOSCRIPT and falls back to EVAL, which caches it.
    const script = new LuaScript(`-- ${randomBytes(8).toString("hex")}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`);
    const key = runtime.keys.run(`lua-${randomBytes(4).toString("hex")}`);
    expect(await runtime.redis.script("EXISTS", script.sha)).toEqual([0]);
    expect(await script.run(runtime.redis, [key], ["2"])).toBe(2);
    expect(await runtime.redis.script("EXISTS", script.sha)).toEqual([1]);
    const before = await evalCalls(runtime.redis);
    expect(await script.run(runtime.redis, [key], ["3"])).toBe(5);
    expect(await evalCalls(runtime.redis)).toEqual({ eval: before.eval, evalsha: before.evalsha + 1 });
    await runtime.redis.del(key);
  });

  it("passes a script's own error through", async () => {
    const { runtime } = fixture;
    const script = new LuaScript("return redis.error_reply('no such thing')");
    await expect(script.run(runtime.redis, [runtime.keys.run("x")], [])).rejects.toThrow("no such thing");
  });
});

/** EVAL and EVALSHA calls the server has counted so far (INFO commandstats). */
async function evalCalls(redis: { info(section: string): Promise<string> }): Promise<{ eval: number; evalsha: number }> {
  const stats = await redis.info("commandstats");
  const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return { eval: calls("eval"), evalsha: calls("evalsha") };
}
