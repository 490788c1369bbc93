import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, rmdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PolicyRule, type ToolGrant } from "@rein/contracts";
import { probeBubblewrap, resolveSandbox, SandboxLimits } from "@rein/sandbox";
import { builtinTools } from "../../src/builtin/builtin-tools.ts";
import type { BuiltinToolOptions } from "../../src/builtin/builtin-options.ts";
import type { ToolCallOutcome } from "../../src/tool-executor.ts";
import { call, harness } from "../../src/testing/executor-harness.ts";
import { workspacePerTest } from "../../src/testing/workspace-per-test.ts";

// Programs that try to take the host down rather than read it: each is
// contained, the call returns, and the trace says what the runtime killed.

const temp = workspacePerTest();

const allow = [PolicyRule.parse({ id: "allow-cmds", tool: "run_command", decision: "allow" })];
const surface: ToolGrant[] = [{ name: "run_command", scope: { commands: ["node", "sh"] } }];

function runner(options: Partial<BuiltinToolOptions> = {}) {
  const { run, trace } = harness({
    tools: builtinTools({ commands: ["node", "sh"], ...options }),
    surface,
    workspace: temp.workspace,
    policy: allow,
  });
  return {
    run: (command: string, args: string[], extra: Record<string, unknown> = {}) => run(call("run_command", { command, args, ...extra })),
    trace,
  };
}

const stdoutOf = (outcome: ToolCallOutcome) =>
  outcome.observation.content.split(/--- stdout[^\n]*---\n/)[1]?.split(/\n--- stderr/)[0] ?? "";

/**
 * Whether this process may make a memory cgroup, found apart from the
 * sandbox's own probe: cgroup v2 with the memory controller delegated to
 * its cgroup, or a writable v1 memory hierarchy.
 */
async function memoryCgroupWritable(): Promise<boolean> {
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [, controllers, path] = line.split(":");
    if (path === undefined || controllers === undefined) continue;
    const dir =
      controllers === ""
        ? join("/sys/fs/cgroup", path)
        : controllers.split(",").includes("memory")
          ? join("/sys/fs/cgroup/memory", path)
          : undefined;
    if (!dir) continue;
    const probe = join(dir, `rein-test-probe-${process.pid}`);
    try {
      await mkdir(probe);
    } catch {
      continue;
    }
    const limited = existsSync(join(probe, "memory.max")) || existsSync(join(probe, "memory.limit_in_bytes"));
    await rmdir(probe);
    if (limited) return true;
  }
  return false;
}

/** A sleep duration no other process on the host uses, to find the sleeper by its command line. */
const uniqueSeconds = () => String(100_000 + Math.floor(Math.random() * 800_000));

/** Host processes whose command line carries `marker` (the sandbox's own /proc cannot see them, the host's can). */
async function hostProcessesWith(marker: string): Promise<number> {
  let count = 0;
  for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) count += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}

describe("hostile programs inside run_command are contained", () => {
  it("a fork bomb hits the process limit and the call still returns", async () => {
    const cgroupRoot = ((await probeBubblewrap()) as { cgroups?: { pids?: string } }).cgroups?.pids;
    const { run } = runner({ sandboxLimits: { processes: 64 } });
    const started = Date.now();
    const outcome = await run("sh", ["-c", "bomb() { bomb | bomb & }; bomb; sleep 2; echo survived-$(ls /proc | grep -c '^[0-9]')"], {
      timeoutMs: 20_000,
    });
    expect(outcome.observation.status).toBe("ok");
    // With a pids cgroup the bomb is capped well below the host's limit; the call returns either way.
    if (cgroupRoot) expect(outcome.observation.content).toMatch(/fork|Resource temporarily unavailable|Cannot fork|survived-\d+/);
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it("a process tree count never exceeds the limit", async () => {
    const cgroupRoot = ((await probeBubblewrap()) as { cgroups?: { pids?: string } }).cgroups?.pids;
    if (!cgroupRoot) return;
    const { run } = runner({ sandboxLimits: { processes: 32 } });
    const outcome = await run(
      "sh",
      ["-c", "i=0; while [ $i -lt 100 ]; do sleep 5 & i=$((i+1)); done; echo started-$(ls /proc | grep -c '^[0-9]')"],
      { timeoutMs: 20_000 },
    );
    // Either the shell itself cannot fork any more, or it counts what it got.
    const started = stdoutOf(outcome).match(/started-(\d+)/)?.[1];
    if (started) expect(Number(started)).toBeLessThanOrEqual(32);
    else expect(outcome.observation.content).toContain("Cannot fork");
  });

  it("unbounded allocation fails inside the program instead of taking the host's memory", async () => {
    const { run } = runner({ sandboxLimits: { memoryBytes: 256 * 1024 * 1024 } });
    const outcome = await run("node", [
      "-e",
      "const a = []; try { for (;;) a.push(Buffer.alloc(1 << 24, 1)); } catch (e) { console.log('refused after', a.length * 16, 'MiB'); process.exit(7); }",
    ]);
    expect(outcome.observation.content).not.toContain("exit code: 0");
    const mib = Number(stdoutOf(outcome).match(/after (\d+) MiB/)?.[1] ?? "0");
    expect(mib).toBeLessThanOrEqual(256);
  });

  it("processes that together allocate past the memory limit are killed, and the call says so", async ({ annotate }) => {
    const { run, trace } = runner({ sandboxLimits: { memoryBytes: 256 * 1024 * 1024 } });
    if (!(await memoryCgroupWritable())) {
      await annotate("no memory cgroup can be made here: each process is held to RLIMIT_DATA alone, the call's processes together are not");
      const single = await run("node", [
        "-e",
        "const a = []; for (let i = 0; i < 32; i++) a.push(Buffer.alloc(1 << 24, 1)); console.log('allocated', a.length * 16);",
      ]);
      expect(single.observation.content).not.toContain("allocated 512");
      return;
    }
    // Each holds 120 MiB, under the per-process RLIMIT_DATA; four together are past the call's limit.
    const hold =
      "const a = []; for (let i = 0; i < 120; i++) a.push(Buffer.alloc(1 << 20, 1)); setTimeout(() => console.log('held', a.length), 3000);";
    const outcome = await run("sh", ["-c", `for i in 1 2 3 4; do node -e "${hold}" & done; wait; echo all-done`], { timeoutMs: 30_000 });
    expect(stdoutOf(outcome).match(/held 120/g)?.length ?? 0).toBeLessThan(4);
    expect(trace.ofKind("tool.executed")[0]?.payload).toMatchObject({ killedBy: "memory_limit", sandbox: "bubblewrap" });
    expect(outcome.observation.content).toContain(
      "killed by the runtime after its processes went past their memory limit (sandboxLimits.memoryBytes)",
    );
  });

  it("a long-lived program whose processes together pass the memory limit is killed, and its exit says so", async ({ annotate, skip }) => {
    if (!(await memoryCgroupWritable())) {
      await annotate(
        "no memory cgroup can be made here: a long-lived program's processes are held to RLIMIT_DATA each (the test above checks it)",
      );
      skip();
    }
    const sandbox = await resolveSandbox("bubblewrap", { limits: SandboxLimits.parse({ memoryBytes: 256 * 1024 * 1024 }) });
    // Four children hold 120 MiB each and never let go; the program ends when one of them is killed.
    const hold = "const a = []; for (let i = 0; i < 120; i++) a.push(Buffer.alloc(1 << 20, 1)); setInterval(() => {}, 1000);";
    const program = `for (let i = 0; i < 4; i++) require("node:child_process").spawn("node", ["-e", ${JSON.stringify(hold)}], { stdio: "ignore" }).on("exit", () => process.exit(1));`;
    const started = await sandbox.start(["node", "-e", program], { workspaceRoot: temp.workspace.root, workingDirectory: "/workspace" });
    const exit = await started.exited;
    expect(exit.killedBy).toBe("memory_limit");
  });

  it("cannot fill the host's memory through /tmp, /dev or /dev/shm", async () => {
    const { run } = runner({ sandboxLimits: { fileBytes: 32 * 1024 * 1024 } });
    const script =
      "touch /dev/x 2>/dev/null && echo dev-writable; for d in /tmp /dev/shm; do i=0; while [ $i -lt 8 ]; do dd if=/dev/zero of=$d/f$i bs=1M count=64 2>/dev/null; i=$((i+1)); done; echo $d-$(du -sm $d | cut -f1); done";
    const outcome = await run("sh", ["-c", script], { timeoutMs: 30_000 });
    const out = stdoutOf(outcome);
    expect(out).not.toContain("dev-writable");
    expect(Number(out.match(/\/tmp-(\d+)/)?.[1] ?? "999")).toBeLessThanOrEqual(33);
    expect(Number(out.match(/\/dev\/shm-(\d+)/)?.[1] ?? "999")).toBeLessThanOrEqual(65);
  });

  it("leaves no setuid or setgid program in the workspace for the host to run", async () => {
    const { run } = runner();
    const outcome = await run("sh", ["-c", "mkdir -p bin && cp /bin/true bin/su-me && chmod 6755 bin/su-me && ls -l bin/su-me"]);
    // The bits were set inside the sandbox, and are gone once the call returns.
    expect(stdoutOf(outcome)).toMatch(/^-rwsr-s/);
    const { mode } = await stat(join(temp.workspace.root, "bin/su-me"));
    expect(mode & 0o6000).toBe(0);
  });

  it("huge output is capped and the writer killed, not drained until its timeout", async () => {
    const { run, trace } = runner({ maxCommandOutputBytes: 64 * 1024 });
    const started = Date.now();
    const outcome = await run("node", ["-e", "const s = 'x'.repeat(65536); for (;;) require('node:fs').writeSync(1, s);"], {
      timeoutMs: 30_000,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(outcome.observation.content).toContain("writing too much output");
    expect(trace.ofKind("tool.executed")[0]?.payload).toMatchObject({ killedBy: "output_limit", sandbox: "bubblewrap" });
  });

  it("a program that outlives its timeout is killed with its background children", async () => {
    const marker = uniqueSeconds();
    const { run, trace } = runner();
    const outcome = await run("sh", ["-c", `sleep ${marker}1 & exec sleep ${marker}`], { timeoutMs: 1_000 });
    expect(outcome.observation.content).toContain("after timeout");
    expect(trace.ofKind("tool.executed")[0]?.payload).toMatchObject({ killedBy: "timeout" });
    expect(await hostProcessesWith(marker)).toBe(0);
    expect(await hostProcessesWith(`${marker}1`)).toBe(0);
  });

  it("a background child left behind by a program that exits is killed with the sandbox", async () => {
    const marker = uniqueSeconds();
    const { run } = runner();
    const outcome = await run("sh", ["-c", `sleep ${marker} > /dev/null 2>&1 & echo left-a-child`], { timeoutMs: 10_000 });
    expect(stdoutOf(outcome)).toContain("left-a-child");
    expect(await hostProcessesWith(marker)).toBe(0);
  });

  it("an abort of the step kills the whole tree", async () => {
    const marker = uniqueSeconds();
    const { tools } = { tools: builtinTools({ commands: ["sh"] }) };
    const { run } = harness({ tools, surface, workspace: temp.workspace, policy: allow });
    const controller = new AbortController();
    const pending = run(call("run_command", { command: "sh", args: ["-c", `exec sleep ${marker}`] }), { signal: controller.signal });
    for (let waited = 0; waited < 100 && (await hostProcessesWith(marker)) === 0; waited += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    // An aborted step gives its call back: no observation, the call ends as interrupted.
    await expect(pending).rejects.toMatchObject({ details: { interrupted: true } });
    for (let waited = 0; waited < 40 && (await hostProcessesWith(marker)) > 0; waited += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await hostProcessesWith(marker)).toBe(0);
  });
});
