import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools } from "../src/builtin/builtin-tools.ts";
import { defineTool } from "../src/define-tool.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

const temp = workspacePerTest();

const fileSurface = ["read_file", "write_file", "edit_file", "list_files", "search_files"].map((name) => ({ name, scope: {} }));

describe("executor pipeline", () => {
  it("never executes a call the model's output cut off", async () => {
    const { run, trace } = harness({ tools: builtinTools(), surface: fileSurface, workspace: temp.workspace });
    const outcome = await run(
      call("write_file", { path: "a.txt" }, { incomplete: { reason: "max_tokens", rawArguments: '{"path":"a.txt","con' } }),
    );
    expect(outcome.observation.status).toBe("cut_off");
    expect(outcome.observation.content).toMatch(/cut off.*re-issue the call/s);
    expect(trace.kinds()).not.toContain("tool.executed");
    await expect(readFile(join(temp.workspace.root, "a.txt"))).rejects.toThrow();
  });

  it("names each bad field, then a corrected call succeeds", async () => {
    await writeFile(join(temp.workspace.root, "notes.txt"), "hello\n");
    const { run, trace } = harness({ tools: builtinTools(), surface: fileSurface, workspace: temp.workspace });
    const bad = await run(call("read_file", { path: 42, startLine: "one" }));
    expect(bad.observation.status).toBe("invalid_input");
    expect(bad.observation.content).toContain('field "path": expected string, received number 42');
    expect(bad.observation.content).toContain('field "startLine": expected number, received string "one"');
    expect(bad.result.failure).toBe("different_action");
    expect(trace.ofKind("tool.input_invalid")).toHaveLength(1);

    const good = await run(call("read_file", { path: "notes.txt" }));
    expect(good.observation.status).toBe("ok");
    expect(good.observation.content).toContain("hello");
  });

  it("writes, edits and reads back inside the workspace under the default policy", async () => {
    const { run } = harness({ tools: builtinTools(), surface: fileSurface, workspace: temp.workspace });
    expect((await run(call("write_file", { path: "src/a.ts", content: "const a = 1;\nconst b = 1;\n" }))).observation.status).toBe("ok");
    const edited = await run(call("edit_file", { path: "src/a.ts", oldString: "const a = 1;", newString: "const a = 2;" }));
    expect(edited.observation.status).toBe("ok");
    expect(await readFile(join(temp.workspace.root, "src/a.ts"), "utf8")).toBe("const a = 2;\nconst b = 1;\n");
    const listed = await run(call("list_files", { recursive: true }));
    expect(listed.observation.content).toContain("src/a.ts");
    const found = await run(call("search_files", { query: "const b" }));
    expect(found.observation.content).toContain("src/a.ts:2: const b = 1;");
  });

  it("edit_file fails clearly when the text is absent or ambiguous", async () => {
    await writeFile(join(temp.workspace.root, "x.txt"), "one two one\n");
    const { run } = harness({ tools: builtinTools(), surface: fileSurface, workspace: temp.workspace });
    const absent = await run(call("edit_file", { path: "x.txt", oldString: "three", newString: "3" }));
    expect(absent.observation.status).toBe("error");
    expect(absent.observation.content).toContain("oldString was not found in x.txt");
    expect(absent.result.failure).toBe("different_action");
    const ambiguous = await run(call("edit_file", { path: "x.txt", oldString: "one", newString: "1" }));
    expect(ambiguous.observation.content).toContain("occurs 2 times");
    expect(await readFile(join(temp.workspace.root, "x.txt"), "utf8")).toBe("one two one\n");
    const all = await run(call("edit_file", { path: "x.txt", oldString: "one", newString: "1", replaceAll: true }));
    expect(all.observation.status).toBe("ok");
    expect(await readFile(join(temp.workspace.root, "x.txt"), "utf8")).toBe("1 two 1\n");
  });

  it("marks an empty result as empty without claiming nothing exists", async () => {
    const { run } = harness({ tools: builtinTools(), surface: fileSurface, workspace: temp.workspace });
    const outcome = await run(call("search_files", { query: "absent-needle" }));
    expect(outcome.observation.empty).toBe(true);
    expect(outcome.observation.content).toBe("search_files returned nothing: its result was empty.");
  });

  it("times out a tool that hangs and classifies it retryable", async () => {
    let attempts = 0;
    const hang = defineTool({
      name: "hang",
      description: "never finishes",
      effect: "read",
      idempotent: false,
      input: z.object({}),
      timeoutMs: 20,
      run: () => {
        attempts += 1;
        return new Promise<string>(() => {});
      },
    });
    const { run } = harness({ tools: [hang], surface: [{ name: "hang", scope: {} }], workspace: temp.workspace });
    const outcome = await run(call("hang", {}));
    expect(outcome.observation.status).toBe("timeout");
    expect(outcome.result.failure).toBe("retryable");
    expect(attempts).toBe(1);
  });

  it("retries transient failures of idempotent tools only, boundedly", async () => {
    let attempts = 0;
    const flaky = defineTool({
      name: "flaky",
      description: "fails twice",
      effect: "read",
      input: z.object({}),
      run: async () => {
        attempts += 1;
        if (attempts < 3) throw Object.assign(new Error("reset"), { code: "ECONNRESET" });
        return "fine";
      },
    });
    const { run } = harness({
      tools: [flaky],
      surface: [{ name: "flaky", scope: {} }],
      workspace: temp.workspace,
      deps: { retry: { maxAttempts: 3, backoffMs: 1 } },
    });
    const outcome = await run(call("flaky", {}));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.result.attempts).toBe(3);
  });

  it("never passes on a result that breaks the tool's output schema", async () => {
    const liar = defineTool({
      name: "liar",
      description: "returns the wrong shape",
      effect: "read",
      input: z.object({}),
      output: z.object({ count: z.number() }),
      run: async () => ({ count: "many" }) as unknown as { count: number },
    });
    const { run } = harness({ tools: [liar], surface: [{ name: "liar", scope: {} }], workspace: temp.workspace });
    const outcome = await run(call("liar", {}));
    expect(outcome.observation.status).toBe("invalid_output");
    expect(outcome.observation.content).not.toContain("many");
    expect(outcome.observation.content).toContain('field "count": expected number');
  });

  it("bounds a 10 MB result and keeps all of it in an artifact", async () => {
    const line = `${"x".repeat(99)}\n`;
    const big = line.repeat(100_000);
    const huge = defineTool({ name: "huge", description: "returns 10 MB", effect: "read", input: z.object({}), run: async () => big });
    const { run, artifacts } = harness({
      tools: [huge],
      surface: [{ name: "huge", scope: {} }],
      workspace: temp.workspace,
      limits: { maxBytes: 16_384, maxLines: 200 },
    });
    const outcome = await run(call("huge", {}));
    const { observation } = outcome;
    expect(Buffer.byteLength(observation.content)).toBeLessThan(20_000);
    expect(observation.truncated).toMatchObject({ shownLines: 164, totalLines: 100_000, totalBytes: 10_000_000 });
    const artifactId = observation.truncated?.artifactId as string;
    expect(observation.content).toContain(
      `164 of 100000 lines shown (16384 of 10000000 bytes); the whole text is in artifact ${artifactId}`,
    );
    expect(artifacts.items.get(artifactId)).toBe(big);
    expect(outcome.result.artifactId).toBe(artifactId);
  });

  it("keeps records and trace events with ids and hashes", async () => {
    await writeFile(join(temp.workspace.root, "a.txt"), "A");
    const { run, trace } = harness({ tools: builtinTools(), surface: fileSurface, workspace: temp.workspace });
    const outcome = await run(call("read_file", { path: "a.txt" }));
    expect(outcome.record.fingerprint).toMatch(/^sha256:/);
    expect(outcome.record.observationId).toBe(outcome.observation.id);
    expect(outcome.observation.id).toMatch(/^obs_/);
    expect(trace.kinds()).toEqual(["tool.called", "permission.decided", "tool.executed", "tool.result", "observation.made"]);
    for (const event of trace.events) {
      expect(event).toMatchObject({ runId: "run_test", stepId: "step_test", parentStepId: null, inputHash: outcome.record.argsHash });
    }
    expect(trace.ofKind("permission.decided")[0]?.payload).toMatchObject({ decision: "allow", rule: "default:read" });
  });

  it("traces a call's duration to the microsecond, so its events give redaction's prefilter no 17-digit run to take for a card number", async () => {
    await writeFile(join(temp.workspace.root, "a.txt"), "A");
    const { run, trace } = harness({ tools: builtinTools(), surface: fileSurface, workspace: temp.workspace });
    for (let index = 0; index < 5; index += 1) await run(call("read_file", { path: "a.txt" }));
    const durations = [...trace.ofKind("tool.executed"), ...trace.ofKind("tool.result")].map((event) => event.durationMs);
    expect(durations).toHaveLength(10);
    for (const durationMs of durations) expect(String(durationMs)).toMatch(/^\d+(\.\d{1,3})?$/);
  });
});
