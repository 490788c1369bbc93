import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { mkdir, mkdtemp, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "@rein/contracts";
import { SANDBOX_UID, SANDBOX_WORKSPACE, type HostLayout } from "./bubblewrap-args.ts";

/** Top-level directories programs need; /bin, /lib… are symlinks into /usr on merged-/usr systems. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * What of /etc a program needs to start, resolve its libraries and verify
 * TLS, and nothing that describes the host: no passwd, shadow, hostname,
 * machine-id, resolv.conf or credentials. TLS gets the CA certificates and
 * OpenSSL's config (Debian's /etc/ssl/certs, Fedora's /etc/pki/ca-trust and
 * /etc/pki/tls/certs), never the directories beside them that hold the
 * host's private keys (/etc/ssl/private, /etc/pki/tls/private).
 */
const ETC_ENTRIES = [
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/ssl/certs",
  "/etc/ssl/cert.pem",
  "/etc/ssl/openssl.cnf",
  "/etc/ca-certificates",
  "/etc/pki/ca-trust",
  "/etc/pki/tls/certs",
  "/etc/pki/tls/cert.pem",
  "/etc/pki/tls/openssl.cnf",
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
  const contents = {
    passwd: `sandbox:x:${SANDBOX_UID}:${SANDBOX_UID}:sandbox:${SANDBOX_WORKSPACE}:/bin/sh\n`,
    group: `sandbox:x:${SANDBOX_UID}:\n`,
    hosts: "127.0.0.1 localhost\n::1 localhost\n",
  };
  const etc = await etcDirectory(sha256(JSON.stringify(contents)).slice(7, 23));
  const etcFiles = { passwd: join(etc, "passwd"), group: join(etc, "group"), hosts: join(etc, "hosts") };
  // Written aside and renamed in, so a sandbox starting in another process never binds a half-written file.
  for (const [name, text] of Object.entries(contents)) {
    const aside = join(etc, `.${name}.${process.pid}`);
    await writeFile(aside, text);
    await rename(aside, join(etc, name));
  }
  return { symlinks, readOnly, etcFiles, disableUserns };
}

/**
 * One directory per user and content, shared by every Rein process, so
 * processes leave no directory behind each. One that is not ours (another
 * user got there first in a shared /tmp) is never used.
 */
async function etcDirectory(hash: string): Promise<string> {
  const uid = process.getuid?.() ?? 0;
  const dir = join(tmpdir(), `rein-sandbox-etc-${uid}-${hash}`);
  try {
    await mkdir(dir, { mode: 0o755 });
    return dir;
  } catch {
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (stat?.isDirectory() && stat.uid === uid) return dir;
    return mkdtemp(join(tmpdir(), "rein-sandbox-etc-"));
  }
}
