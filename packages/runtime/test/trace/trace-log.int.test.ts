import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestRuntime, type TestRuntime } from "../../src/testing/index.ts";
import { Redactor } from "@rein/guard";
import type { TraceEventInput } from "@rein/trace";
import { TraceBuffer } from "../../src/trace/trace-buffer.ts";
import { TraceLog } from "../../src/trace/trace-log.ts";

const submitted = { goal: "g", tools: [], budget: {} };
const ended = { reason: "r", partial: false, missing: [] };

describe("TraceLog storage beyond append", () => {
  let runtime: TestRuntime;
  beforeEach(async () => {
    runtime = await createTestRuntime();
  });
  afterEach(async () => {
    await runtime.cleanup();
  });

  it("loads recorded events with their own seq and ts, and refuses to merge into an existing trace", async () => {
    await runtime.trace.append({ runId: "run_a", kind: "run.submitted", ts: "2026-01-01T00:00:00.000Z", payload: submitted });
    await runtime.trace.append({ runId: "run_a", stepId: "s1", kind: "step.started", payload: { attempt: 1 } });
    await runtime.trace.putBlobs("run_a", new Map([["sha256:aa", '"system"']]));
    const events = await runtime.trace.read("run_a");
    const blobs = await runtime.trace.readBlobs("run_a");
    await runtime.trace.remove("run_a");
    expect(await runtime.trace.read("run_a")).toEqual([]);

    await runtime.trace.load("run_a", events, blobs);
    expect(await runtime.trace.read("run_a")).toEqual(events);
    expect(await runtime.trace.readBlobs("run_a")).toEqual(blobs);
    const next = await runtime.trace.append({ runId: "run_a", kind: "run.done", payload: ended });
    expect(next.seq).toBe(3);
    await expect(runtime.trace.load("run_a", events)).rejects.toThrow(/already has a trace/);
  });

  it("stores each event without what its stream already says (the run, schema version 1, absent step ids) and reads it back whole", async () => {
    const written = await runtime.trace.append({ runId: "run_d", kind: "run.submitted", payload: submitted });
    const entries = await runtime.redis.xrange(runtime.keys.trace("run_d"), "-", "+");
    const stored = entries[0]?.[1][3] ?? "";
    for (const left of ["run_d", "schemaVersion", "stepId", "parentStepId"]) expect(stored).not.toContain(left);
    const [read] = await runtime.trace.read("run_d");
    expect(read).toEqual(written);
    expect(read).toMatchObject({ schemaVersion: 1, runId: "run_d", stepId: null, parentStepId: null, kind: "run.submitted", seq: 1 });
  });

  it("redacts a prompt blob once for all the runs that store it, and stores it redacted in each", async () => {
    const redacted: string[] = [];
    const trace = new TraceLog(runtime.redis, runtime.keys, {
      redact: (text) => {
        redacted.push(text);
        return text.replaceAll("sk-secret", "[secret]");
      },
    });
    const schema = new Map([["sha256:schema", '{"maximum":9007199254740991,"key":"sk-secret"}']]);
    await trace.putBlobs("run_e", schema);
    await trace.putBlobs("run_f", schema);
    const batch = trace.batch("run_g", [], schema);

    expect(redacted).toEqual(['{"maximum":9007199254740991,"key":"sk-secret"}']);
    for (const runId of ["run_e", "run_f"])
      expect(await trace.readBlobs(runId)).toEqual({ "sha256:schema": '{"maximum":9007199254740991,"key":"[secret]"}' });
    expect(batch.blobEntries).toEqual([["sha256:schema", '{"maximum":9007199254740991,"key":"[secret]"}']]);
  });

  it("shows its observers (telemetry spans) each event as stored, never a secret the trace itself would not keep", async () => {
    const redactor = new Redactor({ secrets: ["sk-live-0123456789"] });
    const observed: TraceEventInput[] = [];
    const trace = new TraceLog(runtime.redis, runtime.keys, { redact: redactor.redactJson, observe: (event) => observed.push(event) });
    const failed = {
      role: "worker",
      provider: "openai-compatible",
      model: "m",
      error: "401: bad key sk-live-0123456789 for https://proxy",
    } as const;
    await trace.append({ runId: "run_h", stepId: "s1", kind: "model.failed", payload: failed });
    new TraceBuffer(trace, "run_h").append({ runId: "run_h", stepId: "s1", kind: "model.failed", payload: failed });

    expect(observed).toHaveLength(2);
    for (const event of observed) {
      expect(JSON.stringify(event)).not.toContain("sk-live-0123456789");
      expect(event).toMatchObject({
        runId: "run_h",
        stepId: "s1",
        kind: "model.failed",
        payload: { error: "401: bad key [REDACTED:secret] for https://proxy" },
      });
    }
    const clean = { ...failed, error: "timeout" };
    await trace.append({ runId: "run_h", stepId: "s1", kind: "model.failed", payload: clean });
    expect(observed[2]).toMatchObject({ runId: "run_h", kind: "model.failed", payload: clean });
  });

  it("expires a trace after its retention TTL, refreshed by each append", async () => {
    const trace = new TraceLog(runtime.redis, runtime.keys, { ttlSeconds: 60 });
    await trace.append({ runId: "run_b", kind: "run.submitted", payload: submitted });
    await trace.putBlobs("run_b", new Map([["sha256:bb", "{}"]]));
    for (const key of [runtime.keys.trace("run_b"), runtime.keys.traceSeq("run_b"), `${runtime.keys.trace("run_b")}:blobs`]) {
      const ttl = await runtime.redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60);
    }
    await runtime.trace.append({ runId: "run_c", kind: "run.submitted", payload: submitted });
    expect(await runtime.redis.ttl(runtime.keys.trace("run_c"))).toBe(-1);
  });
});
