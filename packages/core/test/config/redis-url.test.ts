import { describe, expect, it } from "vitest";
import { bullmqConnectionOf, redactPassword } from "../../src/redis/connection.ts";

describe("redisUrl for the queues", () => {
  it("decodes a percent-encoded user and password, as ioredis does for the same URL", () => {
    expect(bullmqConnectionOf("redis://rein:p%40ss%2Fw%3Ard@redis.internal:6380/2")).toMatchObject({
      host: "redis.internal",
      port: 6380,
      username: "rein",
      password: "p@ss/w:rd",
      db: 2,
    });
    expect(bullmqConnectionOf("redis://127.0.0.1:6379")).toMatchObject({ username: undefined, password: undefined, db: 0 });
  });

  it("speaks TLS for rediss://", () => {
    expect(bullmqConnectionOf("rediss://:pw@redis.example.com:6380")).toMatchObject({ tls: { servername: "redis.example.com" }, port: 6380 });
    expect(bullmqConnectionOf("redis://redis.example.com")).not.toHaveProperty("tls");
  });

  it("refuses a URL that is not Redis's, without echoing its password", () => {
    expect(() => bullmqConnectionOf("http://redis.example.com")).toThrow(/expected the redis:\/\/ or rediss:\/\/ scheme/);
    expect(redactPassword("redis://rein:hunter2@host:6379")).toBe("redis://rein:***@host:6379");
    expect(redactPassword("redis://host:6379")).toBe("redis://host:6379");
  });
});
