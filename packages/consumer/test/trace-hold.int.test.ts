import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TraceEventInput } from "@rein/trace";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { TraceHold } from "../src/trace-hold.ts";

// The hold moves events, it does not read them: only their kinds matter here.
const event = (runId: string, kind: string) => ({ runId, kind, payload: {} }) as unknown as TraceEventInput;
const responded = (runId: string) => event(runId, "model.responded");
const called = (runId: string) => event(runId, "model.called");

describe("TraceHold: a trusted role's job's trace, held for its result's write", () => {
  let runtime: TestRuntime;
  beforeEach(async () => {
    runtime = await createTestRuntime();
  });
  afterEach(async () => {
    await runtime.cleanup();
  });
  // The stream as stored, kinds only: these events carry no more than the hold needs.
  const kinds = async (runId: string) =>
    (await runtime.redis.xrange(runtime.keys.trace(runId), "-", "+")).map(([, fields]) => JSON.parse(fields[3] as string).kind);

  it("holds what follows a call, writes a call as it starts with everything held before it, in the order they happened", async () => {
    const hold = new TraceHold(runtime.trace, "run_a");
    await hold.append(called("run_a"));
    await hold.append(responded("run_a"));
    expect(await kinds("run_a")).toEqual(["model.called"]);
    // A second call (a repair) must not be stored ahead of the first call's answer.
    await hold.append(called("run_a"));
    expect(await kinds("run_a")).toEqual(["model.called", "model.responded", "model.called"]);
  });

  it("gives the held events, stamped when they happened, to the result's write, and holds them again if it fails", async () => {
    const hold = new TraceHold(runtime.trace, "run_b");
    await hold.append(responded("run_b"));
    await expect(
      hold.around(() =>
        hold.carry(async (held) => {
          expect(held.map((event) => JSON.parse(event).kind)).toEqual(["model.responded"]);
          throw new Error("the write did not land");
        }),
      ),
    ).rejects.toThrow(/did not land/);
    // The failed job's trace still says what the call answered (and spent).
    expect(await kinds("run_b")).toEqual(["model.responded"]);
    let carried: readonly string[] = [];
    await hold.carry(async (held) => {
      carried = held;
    });
    expect(carried).toEqual([]);
  });

  it("sends a call's prompt blobs with the call's event, not a round trip before it, and stores both", async () => {
    const hold = new TraceHold(runtime.trace, "run_d");
    await runtime.redis.ping();
    // Each command as sent, and whether any command's reply had come back by then.
    const sent: { name: string; afterAReply: boolean }[] = [];
    let replies = 0;
    const send = runtime.redis.sendCommand.bind(runtime.redis);
    vi.spyOn(runtime.redis, "sendCommand").mockImplementation(
      (command: Parameters<typeof send>[0], stream?: Parameters<typeof send>[1]) => {
        sent.push({ name: command.name.toLowerCase(), afterAReply: replies > 0 });
        command.promise.then(
          () => (replies += 1),
          () => (replies += 1),
        );
        return send(command, stream);
      },
    );
    await hold.putBlobs("run_d", new Map([["sha256:abc", "the system prompt"]]));
    await hold.append(called("run_d"));
    vi.restoreAllMocks();

    expect(sent.map((command) => command.name)).toContain("hset");
    expect(sent.filter((command) => command.afterAReply)).toEqual([]);
    expect(await runtime.redis.hget(runtime.keys.traceBlobs("run_d"), "sha256:abc")).toBe("the system prompt");
    expect(await kinds("run_d")).toEqual(["model.called"]);
  });

  it("writes another run's events at once", async () => {
    const hold = new TraceHold(runtime.trace, "run_c");
    await hold.append({ runId: "run_other", kind: "lesson.used", payload: { lessons: [] } });
    expect(await kinds("run_other")).toEqual(["lesson.used"]);
  });
});
