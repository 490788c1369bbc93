import { accessSync, constants, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, delimiter, dirname, join, sep } from "node:path";

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

/**
 * The same for a program named by path (Rein's own node, for the proxy
 * bridge). The install prefix above `bin` is mounted only when it is a
 * prefix of its own (`/opt/node-v20`, `~/.nvm/versions/node/v20`): a
 * directory shared by many programs and holding their credentials
 * (`~/.cargo` with credentials.toml, `~/.local`, any hidden directory, a
 * home directory itself) gives only the program's `bin`, and a program
 * lying directly in a home or top-level directory only its own file.
 */
export function installLocation(path: string): { mount: string; bin: string } | undefined {
  const real = realpathSync(path);
  if (SYSTEM_PREFIXES.some((prefix) => real.startsWith(prefix))) return undefined;
  const bin = dirname(real);
  const prefix = dirname(bin);
  if (bin.split(sep).filter(Boolean).length < 2 || isHome(bin)) return { mount: real, bin };
  const deepEnough = prefix.split(sep).filter(Boolean).length >= 3;
  return { mount: deepEnough && !sharedDirectory(prefix) ? prefix : bin, bin };
}

/** A home directory, a directory right under one (`~/.cargo`, `~/go`), or a hidden one anywhere. */
function sharedDirectory(prefix: string): boolean {
  return basename(prefix).startsWith(".") || isHome(prefix) || isHome(dirname(prefix));
}

function isHome(path: string): boolean {
  return path === homedir() || path === "/root" || path === "/home" || dirname(path) === "/home";
}
