import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LessonStore } from "../../src/index.ts";
import { ReinError } from "@rein/contracts";
import type { Lesson } from "@rein/contracts/run";
import { createTestRuntime, type TestRuntime } from "../../src/testing/index.ts";

const lesson = (lessonId: string, signature: string, createdAt: string, extra: Partial<Lesson> = {}): Lesson => ({
  schemaVersion: 1,
  lessonId,
  kind: "resolved_step",
  createdAt,
  runId: "run_1",
  signature,
  failed: "attempt 1 failed: the tests still failed",
  worked: "attempt 2: wrote a + b",
  fingerprints: [],
  ...extra,
});

describe("LessonStore", () => {
  let runtime: TestRuntime;
  let store: LessonStore;
  beforeEach(async () => {
    runtime = await createTestRuntime();
    store = new LessonStore(runtime.redis, runtime.keys);
  });
  afterEach(async () => runtime.cleanup());

  it("stores, lists newest first, and removes lessons", async () => {
    await store.put(lesson("l1", "fix add() so node --test passes", "2026-01-01T00:00:00.000Z"));
    await store.put(lesson("l2", "payment-api 500s: pool saturated", "2026-01-02T00:00:00.000Z"));
    expect((await store.list()).map((entry) => entry.lessonId)).toEqual(["l2", "l1"]);
    expect(await store.remove("l1")).toBe(true);
    expect(await store.remove("l1")).toBe(false);
    expect((await store.list()).map((entry) => entry.lessonId)).toEqual(["l2"]);
  });

  it("writing the same lesson twice keeps one", async () => {
    const entry = lesson("l1", "fix add()", "2026-01-01T00:00:00.000Z");
    await store.put(entry);
    await store.put(entry);
    expect(await store.list()).toHaveLength(1);
  });

  it("retrieves the most similar lessons for a goal, best first, and none that share no word", async () => {
    await store.put(lesson("l-add", "fix the add module so node --test passes", "2026-01-01T00:00:00.000Z"));
    await store.put(lesson("l-pay", "why payment-api returns 500s — step: gather logs and metrics", "2026-01-02T00:00:00.000Z"));
    await store.put(lesson("l-deploy", "roll back the checkout deploy", "2026-01-03T00:00:00.000Z"));
    const found = await store.similar("payment-api has returned 500s for 10 minutes", 3);
    expect(found.map((entry) => entry.lesson.lessonId)).toEqual(["l-pay"]);
    const [best] = await store.refsFor("the add module fails under node");
    expect(best).toEqual({ id: "l-add", text: expect.stringContaining("What worked: attempt 2: wrote a + b") });
  });

  it("refuses a stored lesson that does not match the contract", async () => {
    await runtime.redis.set(runtime.keys.lesson("bad"), JSON.stringify({ schemaVersion: 2, lessonId: "bad" }));
    await runtime.redis.zadd(runtime.keys.lessonIndex(), 1, "bad");
    const failure = await store.list().catch((error: unknown) => error);
    expect(ReinError.isInstance(failure) && failure.code).toBe("contract_invalid");
  });
});
