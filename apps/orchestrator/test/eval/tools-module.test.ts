import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { EXAMPLES_DIR } from "../../src/examples/load-example.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("rein eval --tools-module", () => {
  it("refuses a module whose tools are not tool definitions before any case runs, naming the file", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "rein-tools-module-")), "tools.mjs");
    writeFileSync(file, 'export const tools = { write_file: "not a list" };\n');
    let stderr = "";
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      stderr += String(chunk);
      return true;
    });
    expect(await main(["eval", join(EXAMPLES_DIR, "eval-suite"), "--tools-module", file])).toBe(2);
    expect(stderr).toContain(`rein eval: ${file}: tools: `);
    expect(stderr).toContain("expected the module to export tools: an array of tool definitions made with defineTool");
  });
});
