import { describe, expect, it } from "vitest";
import * as core from "../src/index.ts";
import * as runtimeEntry from "../src/runtime-entry.ts";

describe("@rein/core/runtime", () => {
  it("exports the same values as @rein/core, so an error thrown by one is an instance of the other's class", () => {
    const exported = Object.entries(runtimeEntry);
    expect(exported.length).toBeGreaterThan(0);
    for (const [name, value] of exported) expect({ name, same: value === (core as Record<string, unknown>)[name] }).toEqual({ name, same: true });
    expect(new runtimeEntry.ReinError("contract_invalid", "x")).toBeInstanceOf(core.ReinError);
  });
});
