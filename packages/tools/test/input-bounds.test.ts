import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools } from "../src/builtin/builtin-tools.ts";
import { INPUT_LIMITS } from "../src/builtin/input-limits.ts";
import { defineTool } from "../src/define-tool.ts";
import { MAX_PATH_CHARS, MAX_PATH_COMPONENTS } from "../src/path-limits.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

const temp = workspacePerTest();

// The report's path: 20 KB, 10,000 components, none of which exists.
const hugePath = `${"a/".repeat(10_000)}x`;
const deepPath = `${"d/".repeat(MAX_PATH_COMPONENTS)}x`;
const surface = (names: string[]) => names.map((name) => ({ name, scope: {} }));

describe("built-in tools bound their string arguments", () => {
  it.each([
    ["read_file", { path: hugePath }, "path"],
    ["write_file", { path: hugePath, content: "x" }, "path"],
    ["edit_file", { path: hugePath, oldString: "a", newString: "b" }, "path"],
    ["list_files", { path: hugePath }, "path"],
    ["search_files", { query: "x", path: hugePath }, "path"],
  ])("%s refuses a 20 KB path as invalid input naming the limit", async (tool, input, field) => {
    const { run, trace } = harness({ tools: builtinTools(), surface: surface([tool]), workspace: temp.workspace });
    const outcome = await run(call(tool, input));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toContain(`field "${field}": at most ${MAX_PATH_CHARS} characters`);
    expect(trace.kinds()).not.toContain("tool.executed");
  });

  it("refuses a short path with too many components, naming the component limit", async () => {
    const { run } = harness({ tools: builtinTools(), surface: surface(["write_file"]), workspace: temp.workspace });
    const outcome = await run(call("write_file", { path: deepPath, content: "x" }));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toContain(`at most ${MAX_PATH_COMPONENTS} path components`);
    expect(await readdir(temp.workspace.root)).toEqual([]);
  });

  it.each([
    ["write_file content", "write_file", { path: "a.txt", content: "x".repeat(INPUT_LIMITS.fileContentChars + 1) }, "content"],
    [
      "edit_file newString",
      "edit_file",
      { path: "a.txt", oldString: "a", newString: "x".repeat(INPUT_LIMITS.fileContentChars + 1) },
      "newString",
    ],
    ["search_files query", "search_files", { query: "q".repeat(INPUT_LIMITS.searchQueryChars + 1) }, "query"],
    ["search_files glob", "search_files", { query: "q", glob: "*".repeat(INPUT_LIMITS.globChars + 1) }, "glob"],
    ["http_request url", "http_request", { url: `https://a.example/${"p".repeat(INPUT_LIMITS.urlChars)}` }, "url"],
    ["http_request body", "http_request", { url: "https://a.example/", body: "b".repeat(INPUT_LIMITS.httpBodyChars + 1) }, "body"],
    [
      "http_request header value",
      "http_request",
      { url: "https://a.example/", headers: { "x-a": "v".repeat(INPUT_LIMITS.headerValueChars + 1) } },
      "headers.x-a",
    ],
  ])("refuses an oversized %s", async (_label, tool, input, field) => {
    const { run } = harness({ tools: builtinTools({ hosts: ["a.example:443"] }), surface: surface([tool]), workspace: temp.workspace });
    const outcome = await run(call(tool, input));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toMatch(new RegExp(`field "${field.replace(".", "\\.")}": at most \\d+ characters`));
  });

  it("refuses more headers than the limit", async () => {
    const headers = Object.fromEntries(Array.from({ length: INPUT_LIMITS.headerCount + 1 }, (_, index) => [`x-h${index}`, "v"]));
    const { run } = harness({
      tools: builtinTools({ hosts: ["a.example:443"] }),
      surface: surface(["http_request"]),
      workspace: temp.workspace,
    });
    const outcome = await run(call("http_request", { url: "https://a.example/", headers }));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toContain(`at most ${INPUT_LIMITS.headerCount} headers`);
  });

  it("publishes the limits in the JSON Schema the model sees", () => {
    const { executor } = harness({ tools: builtinTools(), surface: [], workspace: temp.workspace });
    const [write] = executor.schemasFor(surface(["write_file"]));
    expect(write?.inputSchema).toMatchObject({
      properties: { path: { maxLength: MAX_PATH_CHARS }, content: { maxLength: INPUT_LIMITS.fileContentChars } },
    });
  });
});

describe("a tool without its own bounds", () => {
  // A defineTool (or MCP) tool whose schema takes any string and names it as a path in its scope.
  const loose = defineTool({
    name: "touch_path",
    description: "Names a path.",
    effect: "read",
    input: z.object({ path: z.string() }),
    scope: (args) => ({ paths: [args.path] }),
    run: async () => "ran",
  });

  it("has an oversized scope path refused as invalid input before the workspace is searched", async () => {
    const { run, trace } = harness({ tools: [loose], surface: surface(["touch_path"]), workspace: temp.workspace });
    const outcome = await run(call("touch_path", { path: hugePath }));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toContain(`at most ${MAX_PATH_CHARS} characters`);
    expect(trace.ofKind("tool.input_invalid")).toHaveLength(1);
    expect(trace.kinds()).not.toContain("tool.executed");
  });

  it("has a glob with too many components refused the same way", async () => {
    const { run } = harness({ tools: [loose], surface: surface(["touch_path"]), workspace: temp.workspace });
    const outcome = await run(call("touch_path", { path: `${"*/".repeat(MAX_PATH_COMPONENTS)}x` }));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toContain(`at most ${MAX_PATH_COMPONENTS} path components`);
  });

  it("cannot get a huge path resolved by the workspace either", async () => {
    await expect(temp.workspace.resolve(hugePath)).rejects.toThrow(`at most ${MAX_PATH_CHARS} characters`);
    await expect(temp.workspace.resolve(deepPath)).rejects.toThrow(`at most ${MAX_PATH_COMPONENTS} path components`);
  });
});

describe("http_request headers", () => {
  it.each([
    ["a name with a space", { "x bad": "v" }, "a header name"],
    ["a value with a line break", { "x-a": "v\r\nx-injected: 1" }, "a header value without line breaks"],
  ])("refuses %s as invalid input", async (_label, headers, message) => {
    const { run } = harness({
      tools: builtinTools({ hosts: ["a.example:443"] }),
      surface: surface(["http_request"]),
      workspace: temp.workspace,
    });
    const outcome = await run(call("http_request", { url: "https://a.example/", headers }));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toContain(message);
  });
});
