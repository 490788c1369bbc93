import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PolicyRule } from "@rein/contracts";
import { builtinTools } from "../src/builtin/builtin-tools.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

const temp = workspacePerTest();
const rule = (input: Record<string, unknown>) => PolicyRule.parse(input);
const denySecrets = [
  rule({ id: "no-secrets", decision: "deny", paths: ["secrets/**"] }),
  rule({ id: "no-env", decision: "deny", paths: ["**/.env"] }),
];

async function seed(files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(temp.workspace.root, path);
    await mkdir(join(full, ".."), { recursive: true });
    await writeFile(full, content);
  }
}

const enumerating = [
  { name: "list_files", scope: {} },
  { name: "search_files", scope: {} },
  { name: "read_file", scope: {} },
];

describe("deny rules over what an enumerating call would return", () => {
  it("list_files and search_files over the whole workspace never return a denied file's name or lines", async () => {
    await seed({
      "app/.env": "API_TOKEN=tok-123\n",
      "app/main.ts": "const API_TOKEN = process.env.API_TOKEN;\n",
      "secrets/key.txt": "API_TOKEN=key-456\n",
    });
    const { run } = harness({ tools: builtinTools(), surface: enumerating, workspace: temp.workspace, policy: denySecrets });

    const listed = await run(call("list_files", { path: ".", recursive: true }));
    expect(listed.observation.status).toBe("ok");
    expect(listed.observation.content).toContain("app/main.ts");
    expect(listed.observation.content).not.toContain(".env");
    expect(listed.observation.content).not.toContain("key.txt");

    const searched = await run(call("search_files", { query: "API_TOKEN" }));
    expect(searched.observation.status).toBe("ok");
    expect(searched.observation.content).toContain("app/main.ts:1:");
    expect(searched.observation.content).not.toContain("tok-123");
    expect(searched.observation.content).not.toContain("key-456");
    expect(searched.observation.content).not.toContain("app/.env");
    expect(searched.observation.content).toContain("2 files withheld by the permission policy");

    const read = await run(call("read_file", { path: "app/.env" }));
    expect(read.observation.status).toBe("denied");
  });

  it("a goal's deny rule holds over an enumeration too", async () => {
    await seed({ "notes/a.md": "hello\n", "notes/private/b.md": "hello secret\n" });
    const { run } = harness({
      tools: builtinTools(),
      surface: enumerating,
      workspace: temp.workspace,
      packetPolicy: [rule({ id: "goal:no-private", decision: "deny", paths: ["notes/private/**"] })],
    });
    const searched = await run(call("search_files", { query: "hello", path: "notes" }));
    expect(searched.observation.content).toContain("notes/a.md:1: hello");
    expect(searched.observation.content).not.toContain("secret");
    const listed = await run(call("list_files", { path: "notes", recursive: true }));
    // `notes/private/**` covers the directory itself too.
    expect(listed.observation.content).toContain("a.md");
    expect(listed.observation.content).not.toContain("private");
    expect(listed.observation.content).toContain("2 entries withheld by the permission policy");
  });

  it("an ask rule leaves the entries it covers out, with a note of how many need approval", async () => {
    await seed({ "docs/a.md": "needle\n", "docs/hr/b.md": "needle\n", "docs/hr/c.md": "needle\n" });
    const { run } = harness({
      tools: builtinTools(),
      surface: enumerating,
      workspace: temp.workspace,
      policy: [rule({ id: "hr-ask", decision: "ask", paths: ["docs/hr/*.md"] })],
    });
    const listed = await run(call("list_files", { path: "docs", recursive: true }));
    expect(listed.observation.status).toBe("ok");
    expect(listed.observation.content).toContain("a.md");
    expect(listed.observation.content).not.toContain("b.md");
    expect(listed.observation.content).toMatch(/2 entries need a person's approval \(rule hr-ask\)/);
    const searched = await run(call("search_files", { query: "needle", path: "docs" }));
    expect(searched.observation.content).toContain("docs/a.md:1: needle");
    expect(searched.observation.content).not.toContain("hr/b.md");
    expect(searched.observation.content).toMatch(/2 files need a person's approval \(rule hr-ask\)/);
  });

  it("a search cannot learn whether a withheld file holds the text: the note does not depend on it", async () => {
    await seed({ "secrets/key.txt": "API_TOKEN=key-456\n", "a.txt": "nothing\n" });
    const { run } = harness({ tools: builtinTools(), surface: enumerating, workspace: temp.workspace, policy: denySecrets });
    const hit = await run(call("search_files", { query: "API_TOKEN=key" }));
    const miss = await run(call("search_files", { query: "API_TOKEN=zzz" }));
    const unfenced = (content: string) => content.replace(/[a-p]{16}/g, "NONCE");
    expect(unfenced(hit.observation.content)).toBe(unfenced(miss.observation.content));
    expect(hit.observation.content).toContain("1 file withheld by the permission policy");
  });
});

describe("a grant's pattern is compared as a pattern", () => {
  it("a grant of src/* admits listing src but neither a recursive listing nor a search of it", async () => {
    await seed({ "src/a.ts": "x\n", "src/deep/b.ts": "x\n" });
    const grant = { paths: ["src/*"] };
    const { run } = harness({
      tools: builtinTools(),
      surface: [
        { name: "list_files", scope: grant },
        { name: "search_files", scope: grant },
        { name: "read_file", scope: grant },
      ],
      workspace: temp.workspace,
    });
    expect((await run(call("list_files", { path: "src" }))).observation.status).toBe("ok");
    const recursive = await run(call("list_files", { path: "src", recursive: true }));
    expect(recursive.observation.status).toBe("refused");
    expect(recursive.observation.content).toContain("may not touch paths src/**");
    const searched = await run(call("search_files", { query: "x", path: "src" }));
    expect(searched.observation.status).toBe("refused");
    expect((await run(call("read_file", { path: "src/a.ts" }))).observation.status).toBe("ok");
    expect((await run(call("read_file", { path: "src/deep/b.ts" }))).observation.status).toBe("refused");
  });

  it("a literal path with glob characters is the file it names, not a pattern: '..' after a bracket cannot step past a deny rule", async () => {
    await seed({ "secrets/key.txt": "API_TOKEN=key-456\n" });
    const { run } = harness({ tools: builtinTools(), surface: enumerating, workspace: temp.workspace, policy: denySecrets });
    const sneaky = await run(call("read_file", { path: "src/[x]/../../secrets/key.txt" }));
    expect(sneaky.observation.content).not.toContain("key-456");
    expect(sneaky.observation.status).toBe("denied");
  });

  it("run_command's working directory is the directory it names, brackets and all", async () => {
    await mkdir(join(temp.workspace.root, "build/[tmp]"), { recursive: true });
    const { run } = harness({
      tools: builtinTools({ commands: ["node"] }),
      surface: [{ name: "run_command", scope: {} }],
      workspace: temp.workspace,
      policy: [rule({ id: "no-tmp", decision: "deny", paths: ["build/\\[tmp\\]"] })],
    });
    const outcome = await run(call("run_command", { command: "node", args: ["-e", "1"], cwd: "build/[tmp]" }));
    expect(outcome.observation).toMatchObject({ status: "denied" });
    expect(outcome.observation.content).toContain("rule no-tmp");
  });
});
