import { describe, expect, it } from "vitest";
import { COMMANDS } from "../src/cli/registry.ts";

describe("the CLI's command registry", () => {
  it("names each command once", () => {
    const names = COMMANDS.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
  });

  // The registry copies each command's help and flags so `rein --help` loads no command module; the copies must not drift.
  it.each(COMMANDS.map((entry) => [entry.name, entry] as const))("holds the same name, usage, summary and flags as the `%s` module", async (_name, entry) => {
    const command = await entry.load();
    expect({ name: entry.name, usage: entry.usage, summary: entry.summary, options: entry.options }).toEqual({
      name: command.name,
      usage: command.usage,
      summary: command.summary,
      options: command.options,
    });
  });
});
