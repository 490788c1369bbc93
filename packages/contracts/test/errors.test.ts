import { describe, expect, it } from "vitest";
import { errorMessage, ReinError } from "../src/index.ts";

describe("ReinError", () => {
  it("carries a code, a cause and whether trying again can help", () => {
    const cause = new Error("socket closed");
    const error = new ReinError("model_error", "anthropic answered 529 overloaded; expected a reply", { cause, retryable: true });
    expect(error.code).toBe("model_error");
    expect(error.cause).toBe(cause);
    expect(error.retryable).toBe(true);
    expect(errorMessage(error)).toBe("model_error: anthropic answered 529 overloaded; expected a reply");
  });

  it("is recognised by brand, not by instanceof, so two copies of core agree", () => {
    const foreign = Object.assign(new Error("x"), { [Symbol.for("rein.error")]: true, code: "not_found" });
    expect(ReinError.isInstance(foreign)).toBe(true);
    expect(ReinError.hasCode(foreign, "not_found")).toBe(true);
    expect(ReinError.isInstance(new Error("plain"))).toBe(false);
  });
});
