import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestRuntime } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { publishMcpStatus } from "@rein/controller";
import { cliEnv, rein } from "./support/cli.ts";
import { REPOSITORY } from "./support/core-fixtures.ts";

const filesystemServer = createRequire(import.meta.resolve("@rein/mcp")).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const allowedDir = mkdtempSync(join(tmpdir(), "rein-mcp-cli-dir-"));
const missingDir = "/nonexistent/rein-mcp-cli";

function configFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "rein-mcp-cli-"));
  const file = join(dir, "rein.config.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcp: [
        {
          name: "fs",
          command: process.execPath,
          args: [filesystemServer, allowedDir],
          mounts: [REPOSITORY, allowedDir],
          trustAnnotations: true,
        },
        { name: "broken", command: process.execPath, args: [filesystemServer, missingDir], mounts: [REPOSITORY] },
      ],
    }),
  );
  return file;
}

describe("rein mcp", { timeout: 60_000 }, () => {
  it("check: starts a server and lists its tools", async () => {
    const result = await rein(["mcp", "check", "fs", "--config", configFile()], cliEnv());
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/start \+ initialize \+ tools\/list: ok in \d+ ms, \d+ tool\(s\)/);
    expect(result.stdout).toContain("fs__read_text_file (read)");
  });

  it("check: a server that fails to start prints its command, exit code and stderr", async () => {
    const result = await rein(["mcp", "check", "broken", "--config", configFile()], cliEnv());
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`command: ${process.execPath} ${filesystemServer} ${missingDir}`);
    expect(result.stdout).toContain("exited with code 1");
    expect(result.stdout).toContain("None of the specified directories are accessible");
  });

  it("list: shows each server's state and tools as running processes report them", async () => {
    const runtime = await createTestRuntime();
    const unpublish = publishMcpStatus(runtime, () => [
      {
        server: "fs",
        state: "running",
        tools: ["fs__read_text_file"],
        withheld: [{ tool: "long_job", reason: "it must run as a task" }],
        health: {
          state: "running",
          restarts: 2,
          breaker: "closed",
          inFlight: 0,
          lastExit: { exitCode: null, signal: "SIGKILL", killedFor: null },
        },
      },
      { server: "broken", state: "failed", tools: [], withheld: [], error: "exited with code 1" },
    ]);
    try {
      await expect.poll(async () => (await runtime.redis.hlen(`${runtime.config.prefix}:mcp-status`)) > 0, { timeout: 10_000 }).toBe(true);
      const listed = await rein(["mcp", "list", "--config", configFile()], cliEnv({ REIN_PREFIX: runtime.config.prefix }));
      expect(listed.code).toBe(1);
      expect(listed.stdout).toMatch(/fs {2}.*server-filesystem/);
      expect(listed.stdout).toMatch(
        /: running, process running, breaker closed, restarts 2, 0 in flight, last exit signal SIGKILL\n {4}tools: fs__read_text_file/,
      );
      expect(listed.stdout).toContain("not offered: long_job: it must run as a task");
      expect(listed.stdout).toMatch(/: failed: exited with code 1/);
    } finally {
      await unpublish();
      await runtime.cleanup();
    }
  });
});
