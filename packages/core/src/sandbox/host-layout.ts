import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SANDBOX_UID, SANDBOX_WORKSPACE, type HostLayout } from "./bubblewrap-args.ts";

/** Top-level directories programs need; /bin, /lib… are symlinks into /usr on merged-/usr systems. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * What of /etc a program needs to start, resolve its libraries and verify
 * TLS, and nothing that describes the host: no passwd, shadow, hostname,
 * machine-id, resolv.conf or credentials.
 */
const ETC_ENTRIES = [
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/localtime",
  "/etc/nsswitch.conf",
];

const layouts = new Map<boolean, Promise<HostLayout>>();

/** The mounts this host offers, with a synthetic /etc/passwd, group and hosts written once per process. */
export function hostLayout(disableUserns: boolean): Promise<HostLayout> {
  let layout = layouts.get(disableUserns);
  if (!layout) {
    layout = buildLayout(disableUserns);
    layouts.set(disableUserns, layout);
  }
  return layout;
}

async function buildLayout(disableUserns: boolean): Promise<HostLayout> {
  const symlinks: Array<readonly [string, string]> = [];
  const readOnly: string[] = [];
  for (const path of SYSTEM_DIRS) {
    if (!existsSync(path)) continue;
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) symlinks.push([path, readlinkSync(path)]);
    else if (stat.isDirectory()) readOnly.push(path);
  }
  readOnly.push(...ETC_ENTRIES.filter((path) => existsSync(path)));
  const etc = await mkdtemp(join(tmpdir(), "rein-sandbox-etc-"));
  const etcFiles = {
    passwd: join(etc, "passwd"),
    group: join(etc, "group"),
    hosts: join(etc, "hosts"),
  };
  await writeFile(etcFiles.passwd, `sandbox:x:${SANDBOX_UID}:${SANDBOX_UID}:sandbox:${SANDBOX_WORKSPACE}:/bin/sh\n`);
  await writeFile(etcFiles.group, `sandbox:x:${SANDBOX_UID}:\n`);
  await writeFile(etcFiles.hosts, "127.0.0.1 localhost\n::1 localhost\n");
  return { symlinks, readOnly, etcFiles, disableUserns };
}
