import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RoleProcess, superviseRole } from "../../src/chaos/role-process.ts";
import { within } from "../../src/chaos/within.ts";

/** A process that says it is running, as `rein worker` does, and then ignores SIGTERM. */
const STUBBORN = `process.on("SIGTERM", () => {}); process.stderr.write("stub running against redis\\n"); setInterval(() => {}, 1000);`;

describe("a chaos role process that does not stop", () => {
  let logDir: string;
  const started: RoleProcess[] = [];
  const supervise = (name: string, script: string) => {
    const role = superviseRole(name, spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] }), { logDir });
    started.push(role);
    return role;
  };
  beforeEach(async () => {
    logDir = await mkdtemp(join(tmpdir(), "rein-chaos-role-"));
  });
  afterEach(async () => {
    for (const role of started.splice(0)) if (role.alive()) role.child.kill("SIGKILL");
    await rm(logDir, { recursive: true, force: true });
  });

  it("is SIGKILLed once its grace after SIGTERM is over, and says it had to be", async () => {
    const role = supervise("stubborn", STUBBORN);
    await role.ready;
    const ended = await role.signal("SIGTERM", { graceMs: 300 });
    expect(ended).toEqual({ code: null, signal: "SIGKILL", forced: true });
    expect(role.alive()).toBe(false);
  });

  it("stops at once on SIGTERM when it listens, without being forced", async () => {
    const role = supervise("polite", `process.stderr.write("polite running against redis\\n"); setInterval(() => {}, 1000);`);
    await role.ready;
    expect(await role.signal("SIGTERM", { graceMs: 30_000 })).toEqual({ code: null, signal: "SIGTERM", forced: false });
  });
});

describe("within", () => {
  it("rejects a wait that does not end in time with an error naming what hung", async () => {
    await expect(within("the suite's read of run states", 50, new Promise(() => {}))).rejects.toThrow(
      "chaos: the suite's read of run states did not finish within 50 ms",
    );
  });

  it("passes on what a wait that ends in time resolves to", async () => {
    expect(await within("a quick read", 1_000, Promise.resolve(7))).toBe(7);
  });
});
