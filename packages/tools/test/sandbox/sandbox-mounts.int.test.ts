import { randomBytes } from "node:crypto";
import { accessSync, constants } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PolicyRule, type ToolGrant } from "@rein/contracts";
import { builtinTools } from "../../src/builtin/builtin-tools.ts";
import type { ToolCallOutcome } from "../../src/tool-executor.ts";
import { call, harness } from "../../src/testing/executor-harness.ts";
import { workspacePerTest } from "../../src/testing/workspace-per-test.ts";

// The sandbox mounts what a program needs to run and nothing it could read
// credentials from (issue 28): a program installed under a home directory
// gets its bin directory, not the whole of ~/.cargo or ~/.local, and TLS
// clients get the CA certificates, not the host's private keys.

const temp = workspacePerTest();
const stdoutOf = (outcome: ToolCallOutcome) =>
  outcome.observation.content.split(/--- stdout[^\n]*---\n/)[1]?.split(/\n--- stderr/)[0] ?? "";

function runner(commands: string[]) {
  const surface: ToolGrant[] = [{ name: "run_command", scope: { commands } }];
  const allow = [PolicyRule.parse({ id: "allow-cmds", tool: "run_command", decision: "allow" })];
  const { run } = harness({ tools: builtinTools({ commands }), surface, workspace: temp.workspace, policy: allow });
  return (command: string, args: string[]) => run(call("run_command", { command, args }));
}

/** A sh script that prints each file it is given, or ERR for one it cannot read. */
const PEEK = '#!/bin/sh\nfor f in "$@"; do if cat "$f" 2>/dev/null; then echo; else echo "ERR $f"; fi; done\n';

describe("a program installed under a home directory (~/.cargo/bin, ~/.local/bin)", () => {
  let home: string;
  const saved = { HOME: process.env.HOME, PATH: process.env.PATH };
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "rein-home-"));
    for (const prefix of [".cargo", ".local"]) {
      await mkdir(join(home, prefix, "bin"), { recursive: true });
      await writeFile(join(home, prefix, "bin", `peek${prefix}`), PEEK);
      await chmod(join(home, prefix, "bin", `peek${prefix}`), 0o755);
    }
    await writeFile(join(home, ".cargo", "credentials.toml"), '[registry]\ntoken = "cargo-credential-canary"\n');
    await mkdir(join(home, ".local", "share"), { recursive: true });
    await writeFile(join(home, ".local", "share", "keyring.txt"), "local-keyring-canary");
    await writeFile(join(home, ".netrc"), "machine example.com password netrc-canary");
    process.env.HOME = home;
    process.env.PATH = [join(home, ".cargo", "bin"), join(home, ".local", "bin"), saved.PATH].join(delimiter);
  });
  afterEach(async () => {
    process.env.HOME = saved.HOME;
    process.env.PATH = saved.PATH;
    await rm(home, { recursive: true, force: true });
  });

  it("runs, but cannot read the credentials beside its bin directory or the rest of the home directory", async () => {
    const run = runner(["peek.cargo", "peek.local"]);
    const targets = [join(home, ".cargo", "credentials.toml"), join(home, ".local", "share", "keyring.txt"), join(home, ".netrc")];
    for (const command of ["peek.cargo", "peek.local"]) {
      const outcome = await run(command, targets);
      expect(outcome.observation.status, outcome.observation.content).toBe("ok");
      const seen = stdoutOf(outcome);
      for (const target of targets) expect(seen, `${command} reading ${target}: ${outcome.observation.content}`).toContain(`ERR ${target}`);
      expect(seen).not.toMatch(/canary/);
    }
  });
});

/** Whether this test may place a file in the host's /etc/ssl/private (root, as on CI and here). */
function canWritePrivateKeys(): boolean {
  try {
    accessSync("/etc/ssl/private", constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

describe("TLS material", () => {
  it.skipIf(!canWritePrivateKeys())("the CA certificates are readable, the host's private keys are not", async () => {
    const key = join("/etc/ssl/private", `rein-test-${randomBytes(6).toString("hex")}.key`);
    await writeFile(key, "-----BEGIN PRIVATE KEY-----\nhost-private-key-canary\n", { mode: 0o600 });
    try {
      const run = runner(["sh"]);
      const script = `cat ${key} 2>/dev/null || echo "ERR ${key}"; head -c 64 /etc/ssl/certs/ca-certificates.crt; echo; ls /etc/ssl`;
      const seen = stdoutOf(await run("sh", ["-c", script]));
      expect(seen).toContain(`ERR ${key}`);
      expect(seen).not.toContain("host-private-key-canary");
      expect(seen).toContain("BEGIN CERTIFICATE");
      expect(seen).not.toMatch(/^private$/m);
    } finally {
      await rm(key, { force: true });
    }
  });
});
