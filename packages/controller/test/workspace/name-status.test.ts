import { describe, expect, it } from "vitest";
import { parseNameStatus } from "../../src/workspace/run-changes.ts";

describe("the files git diff --name-status lists", () => {
  it("are read as letter and path in turn", () => {
    expect(parseNameStatus(["M", "src/add.js", "A", "notes/new file.md", "D", "old.txt", "T", "link"])).toEqual([
      { status: "M", path: "src/add.js" },
      { status: "A", path: "notes/new file.md" },
      { status: "D", path: "old.txt" },
      { status: "T", path: "link" },
    ]);
  });

  it.each([
    [["U", "conflicted.txt"], 'listed "U" for conflicted.txt'],
    [["M"], 'listed "M" for no path'],
  ])("refuse a listing that is not letters and paths (%j)", (fields, message) => {
    expect(() => parseNameStatus(fields)).toThrow(
      expect.objectContaining({
        code: "workspace_invalid",
        message: expect.stringContaining(`${message}; expected a change letter (A, M, D or T) and a path`),
      }),
    );
  });
});
