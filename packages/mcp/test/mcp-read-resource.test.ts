import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { PolicyRule, type Scope } from "@rein/contracts";
import { connectMcpServer } from "../src/mcp-tools.ts";
import { call, harness } from "@rein/tools/testing";
import { mcpConnectionPerFile } from "./mcp-per-file.ts";

// Issue 28, code read: `<server>__read_resource` was a `read` of anything,
// its URI matched to no path or host scope, so a grant of `docs/**` or of
// no host at all still let a model read file:///etc/passwd or have the
// server fetch an internal URL. A file:// URI is a path under the
// workspace's rules, an http(s):// URI a host, and what the server is sent
// is the file that was checked.

const SERVER = fileURLToPath(new URL("./fixtures/resource-echo-server.mjs", import.meta.url));
const READ = "res__read_resource";
const noEnv = [PolicyRule.parse({ id: "no-env-files", tool: "*", decision: "deny", paths: ["**/.env"] })];

const fixture = mcpConnectionPerFile(async ({ workspace }) => {
  await mkdir(join(workspace.root, "docs"));
  await mkdir(join(workspace.root, "private"));
  await writeFile(join(workspace.root, "docs", "guide.md"), "guide");
  await writeFile(join(workspace.root, "private", "notes.md"), "notes");
  await writeFile(join(workspace.root, ".env"), "TOKEN=x");
  await symlink(join(workspace.root, "private", "notes.md"), join(workspace.root, "docs", "innocent.md"));
  return connectMcpServer({ name: "res", command: process.execPath, args: [SERVER], mounts: [dirname(SERVER)] });
});

function read(uri: string, scope: Scope) {
  return harness({ tools: fixture.connection.tools, surface: [{ name: READ, scope }], workspace: fixture.workspace, policy: noEnv }).run(
    call(READ, { uri }),
  );
}

const fileUri = (path: string) => pathToFileURL(join(fixture.workspace.root, path)).href;

describe("<server>__read_resource", () => {
  it("reads a file:// URI the grant's paths cover, sending the server the path that was checked", async () => {
    const outcome = await read(fileUri("docs/guide.md"), { paths: ["docs/**"] });
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain(`read ${pathToFileURL(join(await fixture.workspace.resolve("docs/guide.md"))).href}`);
  });

  it("refuses a file:// URI outside the grant's paths, outside the workspace, or through a link that leaves the grant", async () => {
    for (const uri of [
      fileUri("private/notes.md"),
      "file:///etc/passwd",
      `${fileUri("docs")}/../private/notes.md`,
      fileUri("docs/innocent.md"),
    ]) {
      const outcome = await read(uri, { paths: ["docs/**"] });
      expect(outcome.observation.status, uri).toBe("refused");
      expect(outcome.observation.content).not.toContain("read file://");
    }
  });

  it("puts a file:// URI under the path rules: **/.env is denied", async () => {
    const outcome = await read(fileUri(".env"), {});
    expect(outcome.observation.status).toBe("denied");
    expect(outcome.observation.content).toContain("no-env-files");
  });

  it("refuses an http(s):// URI whose host the grant does not name", async () => {
    for (const uri of ["http://169.254.169.254/latest/meta-data/", "https://internal.example.com/admin"]) {
      const outcome = await read(uri, { hosts: ["docs.example.com:443"] });
      expect(outcome.observation.status, uri).toBe("refused");
      expect(outcome.observation.content).toMatch(/this step may not touch hosts \S+ \(allowed: docs\.example\.com:443\)/);
    }
  });

  it("asks a person before the server fetches a granted host, as for any call that reaches out", async () => {
    const outcome = await read("https://docs.example.com/page", { hosts: ["docs.example.com:443"] });
    // No approval store in this harness: an ask is refused rather than run.
    expect(outcome.observation.status).toBe("denied");
    expect(outcome.observation.content).toMatch(/res__read_resource needs a person.s approval for these arguments/);
  });

  it("reads the server's own URIs as the server's service", async () => {
    const outcome = await read("demo://resource/1", {});
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("read demo://resource/1");
  });

  it("refuses a URI it cannot place", async () => {
    for (const uri of ["file://other-host/etc/passwd", "not a uri"]) {
      const outcome = await read(uri, {});
      expect(outcome.observation.status, uri).toBe("invalid_input");
    }
  });
});
