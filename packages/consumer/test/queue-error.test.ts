import { UnrecoverableError } from "bullmq";
import { describe, expect, it } from "vitest";
import { toQueueError } from "../src/index.ts";
import { ReinError } from "@rein/contracts";

describe("toQueueError", () => {
  it("becomes BullMQ's UnrecoverableError when retrying cannot help", () => {
    const final = toQueueError(new ReinError("goal_invalid", "goal.text is empty"));
    expect(final).toBeInstanceOf(UnrecoverableError);
    expect(final.message).toBe("goal_invalid: goal.text is empty");
  });

  it("stays an ordinary error, retried by the queue, when it is transient", () => {
    const transient = new ReinError("redis_unavailable", "no Redis", { retryable: true });
    expect(toQueueError(transient)).toBe(transient);
    expect(toQueueError(transient)).not.toBeInstanceOf(UnrecoverableError);
  });
});
