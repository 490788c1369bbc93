import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testRuntimePerTest } from "../../src/testing/index.ts";
import type { TraceEventInput } from "@rein/trace";
import { TraceLog } from "../../src/trace/trace-log.ts";

const options = { minEvents: 1, chunkBytes: 2_000 };

/** A run's worth of events: its submission, then `turns` more of one step, as a long step writes them. */
function events(runId: string, turns: number): TraceEventInput[] {
  const written: TraceEventInput[] = [
    { runId, kind: "run.submitted", payload: { goal: "read every status", tools: ["echo"], budget: {} } },
  ];
  for (let turn = 1; turn <= turns; turn += 1) {
    written.push({ runId, stepId: "s1", kind: "step.started", payload: { attempt: turn } });
  }
  return written;
}

describe("TraceLog.compact: a finished run's trace packed into chunks", () => {
  const fixture = testRuntimePerTest({ beforeEach, afterEach });

  async function written(runId: string, turns: number) {
    for (const event of events(runId, turns)) await fixture.runtime.trace.append(event);
    return fixture.runtime.trace.read(runId);
  }

  it("reads back the same events, each once and in order, from far fewer and smaller entries", async () => {
    const before = await written("run_a", 120);
    const stream = fixture.runtime.keys.trace("run_a");
    const bytesBefore = Number(await fixture.runtime.redis.memory("USAGE", stream));

    const packed = await fixture.runtime.trace.compact("run_a", options);

    expect(packed).toMatchObject({ events: 121, entriesBefore: 121 });
    expect(packed?.entriesAfter).toBeGreaterThan(1);
    expect(await fixture.runtime.redis.xlen(stream)).toBe(packed?.entriesAfter);
    expect(Number(await fixture.runtime.redis.memory("USAGE", stream))).toBeLessThan(bytesBefore / 3);
    const after = await fixture.runtime.trace.read("run_a");
    expect(after).toEqual(before);
    // An export is the events as JSON lines: the same bytes before and after.
    expect(after.map((event) => JSON.stringify(event)).join("\n")).toBe(before.map((event) => JSON.stringify(event)).join("\n"));
    expect((await fixture.runtime.trace.read("run_a", 100)).map((event) => event.seq)).toEqual(
      before.filter((event) => event.seq > 100).map((event) => event.seq),
    );
  });

  it("leaves a trace shorter than minEvents as written", async () => {
    await written("run_b", 3);
    const stream = fixture.runtime.keys.trace("run_b");
    const entries = await fixture.runtime.redis.xrange(stream, "-", "+");

    expect(await fixture.runtime.trace.compact("run_b", { ...options, minEvents: 5 })).toBeNull();
    expect(await fixture.runtime.redis.xrange(stream, "-", "+")).toEqual(entries);
  });

  it("keeps the trace's TTL, reads an event appended after packing after the packed ones, and packs it on the next compaction", async () => {
    const trace = new TraceLog(fixture.runtime.redis, fixture.runtime.keys, { ttlSeconds: 600 });
    for (const event of events("run_c", 30)) await trace.append(event);
    await trace.compact("run_c", options);
    expect(await fixture.runtime.redis.ttl(fixture.runtime.keys.trace("run_c"))).toBeGreaterThan(500);

    const late = await trace.append({ runId: "run_c", stepId: "s1", kind: "step.started", payload: { attempt: 99 } });
    expect(late.seq).toBe(32);
    expect((await trace.read("run_c")).map((event) => event.seq)).toEqual(Array.from({ length: 32 }, (_, index) => index + 1));

    const chunksBefore = await fixture.runtime.redis.xlen(fixture.runtime.keys.trace("run_c"));
    expect(await trace.compact("run_c", options)).toMatchObject({ events: 1, entriesAfter: chunksBefore });
    expect((await trace.read("run_c")).at(-1)).toEqual(late);
  });

  it("loses no event appended while it packs", async () => {
    await written("run_d", 200);
    const appends = (async () => {
      for (let attempt = 1; attempt <= 40; attempt += 1)
        await fixture.runtime.trace.append({ runId: "run_d", stepId: "s2", kind: "step.started", payload: { attempt } });
    })();
    await Promise.all([fixture.runtime.trace.compact("run_d", options), appends]);

    expect((await fixture.runtime.trace.read("run_d")).map((event) => event.seq)).toEqual(
      Array.from({ length: 241 }, (_, index) => index + 1),
    );
  });

  it("gives a follower that had read part of the trace before it was packed the rest, each event once", async () => {
    await written("run_e", 4);
    const abort = new AbortController();
    const follower = fixture.runtime.trace.follow("run_e", abort.signal, 50)[Symbol.asyncIterator]();
    const seen: number[] = [];
    for (let index = 0; index < 5; index += 1) seen.push((await follower.next()).value?.seq);
    for (let attempt = 5; attempt <= 10; attempt += 1)
      await fixture.runtime.trace.append({ runId: "run_e", stepId: "s1", kind: "step.started", payload: { attempt } });
    // One chunk holds events 1-11 now, under the id of event 11: after what the follower read, so it comes to it.
    await fixture.runtime.trace.compact("run_e", { minEvents: 1, chunkBytes: 1_000_000 });
    await fixture.runtime.trace.append({ runId: "run_e", kind: "run.done", payload: { reason: "r", partial: false, missing: [] } });
    for (;;) {
      const next = await follower.next();
      seen.push(next.value?.seq);
      if (next.value?.kind === "run.done") break;
    }
    abort.abort();
    await follower.return(undefined);
    expect(seen).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
  });

  it("names the entry when a packed chunk does not inflate, or a written event is not JSON", async () => {
    await written("run_f", 5);
    await fixture.runtime.redis.xadd(fixture.runtime.keys.trace("run_f"), "*", "seqs", "7-9", "events", "not deflate");
    await expect(fixture.runtime.trace.read("run_f")).rejects.toThrow(
      /trace entry \d+-\d+ of run run_f is malformed: its events do not inflate/,
    );
    await fixture.runtime.redis.xadd(fixture.runtime.keys.trace("run_g"), "*", "seq", "1", "event", "{cut off");
    await expect(fixture.runtime.trace.read("run_g")).rejects.toMatchObject({
      code: "contract_invalid",
      message: expect.stringMatching(/of run run_g is malformed: its event is not JSON/),
    });
  });
});
