import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LiveChannel } from "../../src/live/live-channel.ts";
import { type LiveEvent, liveEventOf } from "../../src/live/live-event.ts";
import { OpenAIProvider } from "@rein/models/openai";
import { createTestRuntime, type TestRuntime } from "../../src/testing/index.ts";
import { FakeServer, recordingRetry, startScriptedWireServer } from "@rein/models/testing";

const textOf = (events: readonly LiveEvent[]): string => events.map((event) => (event.type === "text_delta" ? event.text : "")).join("");

const answer = "The bug is in add(): it subtracts instead of adding.";

/** The names of the commands sent on the runtime's store connection from now on, until `restore`. */
function recordCommands(runtime: TestRuntime): { sent: string[]; restore(): void } {
  const sent: string[] = [];
  const redis = runtime.redis as unknown as { sendCommand: (command: { name: string }, ...rest: unknown[]) => unknown };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, ...rest) => {
    sent.push(command.name);
    return send(command, ...rest);
  };
  return { sent, restore: () => (redis.sendCommand = send) };
}

describe("the live channel", () => {
  let runtime: TestRuntime;
  let server: FakeServer;

  beforeEach(async () => {
    runtime = await createTestRuntime();
    server = await startScriptedWireServer({
      format: "openai",
      role: "worker",
      model: "gpt-fake",
      script: { worker: [{ turns: [{ text: answer }] }] },
    });
  });
  afterEach(async () => {
    await server.stop();
    await runtime.cleanup();
  });

  it("delivers each text delta of a streamed response to a subscriber of the run, in order", async () => {
    const received: LiveEvent[] = [];
    let allReceived: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      allReceived = resolve;
    });
    const subscription = await runtime.live.subscribe("run_live_1", (event) => {
      received.push(event);
      if (textOf(received) === answer) allReceived();
    });
    const other: LiveEvent[] = [];
    const otherSubscription = await runtime.live.subscribe("run_live_2", (event) => other.push(event));
    try {
      const provider = new OpenAIProvider({
        name: "openai",
        model: "gpt-fake",
        apiKey: "sk-test-123456",
        baseURL: server.baseURL,
        retry: { maxRetries: 0 },
      });
      const response = await provider.complete(
        { role: "worker", system: "s", messages: [{ role: "user", content: [{ type: "text", text: "go" }] }] },
        {
          onEvent: (event) =>
            event.type === "text_delta" &&
            runtime.live.publish({ type: "text_delta", runId: "run_live_1", stepId: "s1", role: "worker", text: event.text }),
        },
      );
      await done;

      expect(server.requests[0]?.body.stream).toBe(true);
      expect(received.length).toBeGreaterThan(3);
      expect(received.every((event) => event.runId === "run_live_1" && event.stepId === "s1" && event.role === "worker")).toBe(true);
      expect(textOf(received)).toBe(answer);
      expect(response.content).toEqual([{ type: "text", text: answer }]);
      // Another run's channel heard nothing, and nothing was stored in Redis.
      expect(other).toEqual([]);
      expect(await runtime.redis.exists(runtime.keys.live("run_live_1"))).toBe(0);
    } finally {
      await subscription.close();
      await otherSubscription.close();
    }
  });

  it("ignores a malformed message on the channel instead of passing it on", async () => {
    const received: LiveEvent[] = [];
    const subscription = await runtime.live.subscribe("run_live_3", (event) => received.push(event));
    try {
      await runtime.redis.publish(runtime.keys.live("run_live_3"), "not json");
      await runtime.redis.publish(runtime.keys.live("run_live_3"), JSON.stringify({ type: "text_delta", text: "no run id" }));
      runtime.live.publish({ type: "text_delta", runId: "run_live_3", stepId: null, role: "planner", text: "ok" });
      await expect.poll(() => received.length).toBe(1);
      expect(received[0]).toEqual({ type: "text_delta", runId: "run_live_3", stepId: null, role: "planner", text: "ok" });
    } finally {
      await subscription.close();
    }
  });

  it("sends nothing while nobody listens to the run, and reaches a subscriber that joins within a second", async () => {
    let now = 0;
    const channel = new LiveChannel(runtime.redis, runtime.keys, undefined, { now: () => now });
    const event = (text: string): LiveEvent => ({ type: "text_delta", runId: "run_live_5", stepId: "s1", role: "worker", text });
    const { sent, restore } = recordCommands(runtime);
    const received: LiveEvent[] = [];
    let subscription: Awaited<ReturnType<LiveChannel["subscribe"]>> | undefined;
    try {
      channel.publish(event("nobody hears this"));
      // A command on the same connection is answered after the publish, whose reply says nobody listened.
      await runtime.redis.ping();
      sent.length = 0;
      channel.publish(event("nor this"));
      expect(sent).toEqual([]);

      subscription = await channel.subscribe("run_live_5", (heard) => received.push(heard));
      now += 1_000;
      channel.publish(event("heard"));
      await expect.poll(() => received.map((heard) => (heard.type === "text_delta" ? heard.text : ""))).toEqual(["heard"]);
      channel.publish(event("and heard again"));
      await expect.poll(() => received.length).toBe(2);
    } finally {
      restore();
      await subscription?.close();
    }
  });

  it("asks once whether anyone listens: a run nobody watches costs one publish, however many events come before the answer", async () => {
    const channel = new LiveChannel(runtime.redis, runtime.keys);
    // Connected first: a command sent before the connection is ready passes through sendCommand twice.
    await runtime.redis.ping();
    const { sent, restore } = recordCommands(runtime);
    try {
      // A model call's start, text and end, as an instant model streams them: all before the first publish is answered.
      for (const text of ["one", "two", "three"])
        channel.publish({ type: "text_delta", runId: "run_live_6", stepId: "s1", role: "worker", text });
      await runtime.redis.ping();
      channel.publish({ type: "text_delta", runId: "run_live_6", stepId: "s1", role: "worker", text: "four" });
      expect(sent.filter((name) => name === "publish")).toEqual(["publish"]);
    } finally {
      restore();
    }
  });

  it("delivers in order the events held while it asked, to a run someone watches", async () => {
    const channel = new LiveChannel(runtime.redis, runtime.keys);
    const received: string[] = [];
    const subscription = await channel.subscribe("run_live_7", (event) =>
      received.push(event.type === "text_delta" ? event.text : event.type),
    );
    try {
      for (const text of ["one", "two", "three"])
        channel.publish({ type: "text_delta", runId: "run_live_7", stepId: "s1", role: "worker", text });
      await runtime.redis.ping();
      channel.publish({ type: "text_delta", runId: "run_live_7", stepId: "s1", role: "worker", text: "four" });
      await expect.poll(() => received).toEqual(["one", "two", "three", "four"]);
    } finally {
      await subscription.close();
    }
  });

  it("tells subscribers to discard a call's partial text when the call is retried mid-stream", async () => {
    const cut = await new FakeServer().start("/v1");
    const head = { id: "c", object: "chat.completion.chunk", created: 1, model: "m" };
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    cut.queue({ sse: chunk({ content: "Half an ans" }) }, { sse: `${chunk({ content: "Whole." })}${chunk({}, "stop")}data: [DONE]\n\n` });
    const received: LiveEvent[] = [];
    const subscription = await runtime.live.subscribe("run_live_4", (event) => received.push(event));
    try {
      const provider = new OpenAIProvider({
        name: "local",
        kind: "openai-compatible",
        model: "m",
        baseURL: cut.baseURL,
        retry: recordingRetry(1).policy,
      });
      await provider.complete(
        { role: "worker", system: "s", messages: [{ role: "user", content: [{ type: "text", text: "go" }] }] },
        {
          onEvent: (event) => {
            const live = liveEventOf(event, { runId: "run_live_4", stepId: "s1", role: "worker" });
            if (live) runtime.live.publish(live);
          },
        },
      );
      await expect.poll(() => received.length).toBe(3);
      expect(received.map((event) => event.type)).toEqual(["text_delta", "retry", "text_delta"]);
      expect(received[1]).toMatchObject({
        type: "retry",
        runId: "run_live_4",
        stepId: "s1",
        role: "worker",
        attempt: 1,
        reason: "stream_error",
      });
      // What a consumer keeps after honouring the retry: only the new attempt's text.
      const kept = received.reduce(
        (text, event) => (event.type === "retry" ? "" : event.type === "text_delta" ? text + event.text : text),
        "",
      );
      expect(kept).toBe("Whole.");
    } finally {
      await subscription.close();
      await cut.stop();
    }
  });
});
