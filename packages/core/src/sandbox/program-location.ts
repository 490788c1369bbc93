import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, dirname, join, sep } from "node:path";

const SYSTEM_PREFIXES = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/"];

/**
 * Where an allowed program lives when that is outside the system
 * directories the sandbox always mounts (node under /opt or ~/.nvm): the
 * directory to mount read-only and the bin directory to put on PATH. Never
 * a home directory or a top-level one as a whole.
 */
export function programLocation(name: string, hostPath = process.env.PATH ?? ""): { mount: string; bin: string } | undefined {
  if (name.includes("/")) return undefined;
  for (const dir of hostPath.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    return installLocation(candidate);
  }
  return undefined;
}

/** The same for a program named by path (Rein's own node, for the proxy bridge). */
export function installLocation(path: string): { mount: string; bin: string } | undefined {
  const real = realpathSync(path);
  if (SYSTEM_PREFIXES.some((prefix) => real.startsWith(prefix))) return undefined;
  const bin = dirname(real);
  const prefix = dirname(bin);
  const deepEnough = prefix.split(sep).filter(Boolean).length >= 3;
  return { mount: deepEnough ? prefix : bin, bin };
}
