import { describe, expect, it } from "vitest";
import { isFailureAddressed, withAddressedFailures } from "../src/index.ts";
import { toolCallRecord as call } from "@rein/contracts/testing";

describe("a failed call counts as addressed only when it was dealt with", () => {
  const failed = call(0, "read_file", { path: "src/ad.js" }, "error");

  it("not by a later call of another tool", () => {
    const records = [failed, call(1, "list_files", { path: "." })];
    expect(isFailureAddressed(records, 0, "done")).toBe(false);
  });

  it("not by the same call repeated, even when it then succeeds", () => {
    const records = [failed, call(1, "read_file", { path: "src/ad.js" })];
    expect(isFailureAddressed(records, 0, undefined)).toBe(false);
  });

  it("not by the same tool with changed arguments that fails again", () => {
    const records = [failed, call(1, "read_file", { path: "src/add.ts" }, "error")];
    expect(isFailureAddressed(records, 0, undefined)).toBe(false);
  });

  it("by the same tool called later with changed arguments that succeeds", () => {
    const records = [failed, call(1, "list_files", { path: "src" }), call(2, "read_file", { path: "src/add.js" })];
    expect(isFailureAddressed(records, 0, undefined)).toBe(true);
  });

  it("by final text that names the failure and why it does not matter", () => {
    const records = [failed, call(1, "list_files", { path: "." })];
    expect(
      isFailureAddressed(
        records,
        0,
        "The read_file call failed because src/ad.js does not exist; the file list shows the code is elsewhere.",
      ),
    ).toBe(true);
    expect(isFailureAddressed(records, 0, "Observation obs_0 was an error, which is expected since that path was a typo.")).toBe(true);
  });

  it("not by final text that only mentions the tool, or names the failure without saying why", () => {
    const records = [failed];
    expect(isFailureAddressed(records, 0, "I used read_file and list_files.")).toBe(false);
    expect(isFailureAddressed(records, 0, "read_file failed.")).toBe(false);
  });

  it("leaves a call that waited for approval to the approval flow", () => {
    const waited = call(0, "restart_service", { service: "api" }, "pending_approval");
    expect(isFailureAddressed([waited, call(1, "restart_service", { service: "api" })], 0, undefined)).toBe(true);
  });

  it("derives the flag for every failed record and leaves successful ones alone", () => {
    const ok = call(1, "list_files", { path: "." });
    const derived = withAddressedFailures([{ ...failed, addressed: true }, ok], "all good");
    expect(derived.map((record) => record.addressed)).toEqual([false, true]);
    expect(derived[1]).toBe(ok);
  });
});
