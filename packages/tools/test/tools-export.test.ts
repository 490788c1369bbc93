import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../src/define-tool.ts";
import { toolsExportOf } from "../src/tools-export.ts";
import { ToolRegistry } from "../src/tool-registry.ts";

const echo = defineTool({
  name: "echo",
  description: "says it back",
  effect: "read",
  input: z.object({ text: z.string() }),
  run: async ({ text }) => text,
});

describe("the tools a user's module exports", () => {
  it("are the module's tool definitions, unchanged in what they do", async () => {
    const [tool] = toolsExportOf({ tools: [echo] }, "tools.ts");
    expect(tool?.name).toBe("echo");
    expect(await tool?.run({ text: "hi" }, undefined as never)).toBe("hi");
    expect(tool?.input).toBe(echo.input);
  });

  it.each([
    [{}, "tools.ts: tools: "],
    [{ tools: echo }, "tools.ts: tools: "],
    [{ tools: [echo, { ...echo, run: "not code" }] }, "tools.ts: tools[1].run: expected a function"],
    [
      { tools: [{ name: "raw", description: "no defineTool", effect: "read", input: echo.input, run: echo.run }] },
      "tools.ts: tools[0].approval: ",
    ],
    [{ tools: [{ ...echo, input: { type: "object" } }] }, "tools.ts: tools[0].input: expected a zod schema"],
  ])("refuses a module that does not export tool definitions (%j), naming the file and field", (module, message) => {
    expect(() => toolsExportOf(module, "tools.ts")).toThrow(
      expect.objectContaining({
        code: "config_invalid",
        message: expect.stringMatching(
          new RegExp(
            `^${message.replace(/[.[\]]/g, "\\$&")}.*expected the module to export tools: an array of tool definitions made with defineTool$`,
          ),
        ),
      }),
    );
  });
});

describe("a tool given to a registry by a program", () => {
  it.each([
    [{ ...echo, effect: undefined }, /tool echo: effect: /],
    [{ ...echo, effect: "raed" }, /tool echo: effect: /],
    [{ ...echo, run: undefined }, /tool echo: run: expected a function/],
  ])("is checked as a module's is, naming the tool and field (%#)", (tool, message) => {
    expect(() => new ToolRegistry([tool as never])).toThrow(
      expect.objectContaining({ code: "config_invalid", message: expect.stringMatching(message) }),
    );
  });

  it("keeps the program's own definition, not a copy", () => {
    expect(new ToolRegistry([echo]).get("echo")).toBe(echo);
  });
});
