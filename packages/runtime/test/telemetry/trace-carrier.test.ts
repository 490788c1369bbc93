import { describe, expect, it } from "vitest";
import { carriesTrace } from "../../src/telemetry/run-trace-contexts.ts";

describe("propagation metadata", () => {
  it("names a trace when it carries a traceparent", () => {
    expect(carriesTrace(JSON.stringify({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }))).toBe(true);
  });

  it.each(["{}", '{"traceparent": ""}', '{"traceparent": 7}', "null", "not json"])(
    "names none when it is %s, so the event joins its run's trace",
    (metadata) => {
      expect(carriesTrace(metadata)).toBe(false);
    },
  );
});
