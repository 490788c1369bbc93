import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadExample } from "../../src/examples/load-example.ts";

describe("loading an example", () => {
  it("refuses a tools.ts whose tools are not tool definitions, naming the file and what was expected", async () => {
    const examples = mkdtempSync(join(tmpdir(), "rein-examples-"));
    mkdirSync(join(examples, "broken"));
    writeFileSync(join(examples, "broken", "goal.json"), JSON.stringify({ text: "do it" }));
    writeFileSync(join(examples, "broken", "tools.ts"), 'export const tools = [{ name: "half", description: "no run" }];\n');
    await expect(loadExample("broken", examples)).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringMatching(
        /broken\/tools\.ts: tools\[0\]\.effect: .*expected the module to export tools: an array of tool definitions made with defineTool/,
      ),
    });
  });
});
