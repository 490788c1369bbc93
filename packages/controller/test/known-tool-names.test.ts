import { describe, expect, it } from "vitest";
import { ReinConfig } from "@rein/runtime";
import { knownToolNames } from "../src/roles/tooling.ts";

describe("the tool names a goal may be granted", () => {
  // A step worker carries a module's tools (`toolModules`, `rein worker --tools`); the submitting
  // process (`rein submit`, `POST /runs`, `rein run`) learns their names from `tools.extra`.
  it("includes config tools.extra, so a goal can grant a tool only the step workers' modules define", () => {
    const config = ReinConfig.parse({ tools: { extra: ["reverse_text", "shout"] } });
    const names = knownToolNames(config, []);
    expect(names).toEqual(expect.arrayContaining(["reverse_text", "shout", "read_file"]));
  });

  it("does not know a tool no config or module names", () => {
    expect(knownToolNames(ReinConfig.parse({}), [])).not.toContain("reverse_text");
  });
});
