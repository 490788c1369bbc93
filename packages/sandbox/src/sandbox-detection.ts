import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { ReinError } from "@rein/contracts";
import { createBubblewrapSandbox } from "./bubblewrap-sandbox.ts";
import { hostLayout } from "./host-layout.ts";
import { CallCgroup, type CgroupRoots } from "./call-cgroup.ts";
import type { Sandbox } from "./sandbox.ts";
import { SandboxLimits, type SandboxMode } from "./sandbox-config.ts";
import { unsandboxed } from "./unsandboxed.ts";

export const INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) on a Linux host that allows user namespaces, " +
  'or set "sandbox": "none" in rein.config.json to run programs without one (not for untrusted models)';

interface Probe {
  bwrapPath: string;
  disableUserns: boolean;
  /** Where per-call cgroups can be made, by controller. */
  cgroups: CgroupRoots;
}

// Whether bwrap can start a namespace does not change while the process runs: probe once.
const probes = new Map<string, Promise<Probe | string>>();

/** The bubblewrap sandbox when it can actually start here, else a sentence saying why not. */
export function probeBubblewrap(bwrapPath = "bwrap"): Promise<Probe | string> {
  let probe = probes.get(bwrapPath);
  if (!probe) {
    probe = runProbe(bwrapPath);
    probes.set(bwrapPath, probe);
  }
  return probe;
}

async function runProbe(bwrap: string): Promise<Probe | string> {
  if (process.platform !== "linux") return `bubblewrap needs Linux; this is ${process.platform}`;
  const bwrapPath = executableOnPath(bwrap);
  if (!bwrapPath) return `${bwrap} is not installed or not executable`;
  const workspace = await mkdtemp(join(tmpdir(), "rein-sandbox-probe-"));
  const cgroups = await CallCgroup.findRoots();
  let lastError = "";
  try {
    // Older bwrap lacks --disable-userns; it is hardening, not the boundary.
    for (const disableUserns of [true, false]) {
      const sandbox = createBubblewrapSandbox({
        bwrapPath,
        layout: await hostLayout(disableUserns),
        limits: SandboxLimits.parse({}),
        cgroups,
      });
      try {
        const result = await sandbox.run(["true"], { workspaceRoot: workspace, cwd: ".", timeoutMs: 10_000, maxOutputBytes: 4096 });
        if (result.exitCode === 0) return { bwrapPath, disableUserns, cgroups };
        lastError = result.stderr.trim() || `exit code ${result.exitCode}`;
      } catch (error) {
        lastError = (error as Error).message;
      }
    }
    return `bwrap could not start a sandbox: ${lastError}`;
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/** An absolute path as given, or the first match on this process's PATH; the sandbox itself is started with an empty environment. */
function executableOnPath(name: string): string | undefined {
  const candidates = isAbsolute(name)
    ? [name]
    : (process.env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export interface ResolveSandboxOptions {
  limits?: SandboxLimits;
  /** @defaultValue "bwrap" on PATH */
  bwrapPath?: string;
}

/**
 * The sandbox config `sandbox` asks for. `auto` and `bubblewrap` both
 * refuse (a `sandbox_unavailable` error saying how to install one) when
 * bubblewrap cannot start; only an explicit `none` runs programs without one.
 */
export async function resolveSandbox(mode: SandboxMode, options: ResolveSandboxOptions = {}): Promise<Sandbox> {
  if (mode === "none") return unsandboxed;
  const probe = await probeBubblewrap(options.bwrapPath);
  if (typeof probe === "string") {
    throw new ReinError("sandbox_unavailable", `no sandbox can start, so no program was run (${probe}); to fix it, ${INSTALL_HINT}`);
  }
  return createBubblewrapSandbox({
    bwrapPath: probe.bwrapPath,
    layout: await hostLayout(probe.disableUserns),
    limits: options.limits ?? SandboxLimits.parse({}),
    cgroups: probe.cgroups,
  });
}
