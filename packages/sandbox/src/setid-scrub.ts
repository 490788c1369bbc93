import { chmod, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

const SETID_BITS = 0o6000;

/**
 * Clears set-user-ID and set-group-ID bits a sandboxed program left in the
 * workspace. The sandbox's uid maps back to the uid Rein runs as, so a
 * program could otherwise leave a setuid binary of that user (root, often)
 * for anyone on the host to run. Symlinks are not followed.
 */
export async function scrubSetIdBits(root: string): Promise<string[]> {
  const cleared: string[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) pending.push(path);
      try {
        const { mode } = await lstat(path);
        if ((mode & SETID_BITS) !== 0 && !entry.isDirectory()) {
          await chmod(path, mode & 0o777 & ~SETID_BITS);
          cleared.push(path);
        }
      } catch {
        // Removed meanwhile.
      }
    }
  }
  return cleared;
}
