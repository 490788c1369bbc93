import { constants, type Dirent, existsSync } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readdir, readlink, realpath } from "node:fs/promises";
import { basename, dirname, sep } from "node:path";
import { ReinError } from "@rein/contracts";

const { O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_RDWR, O_WRONLY } = constants;

/** How a file tool opens a file: to read it, to read and rewrite it, or to write it (created when missing). */
export type OpenMode = "read" | "update" | "write";

const FLAGS: Record<OpenMode, number> = { read: O_RDONLY, update: O_RDWR, write: O_WRONLY | O_CREAT };

// Where Linux shows what each open descriptor really is; a path under an
// entry here resolves through that descriptor, like openat(2).
const PROC_FD = "/proc/self/fd";
const hasProcFd = existsSync(PROC_FD);

/**
 * Opens a file or directory that `resolve` found at `real` inside `root`,
 * so that a symlink swapped in after the path was checked cannot send the
 * open elsewhere: the last component is opened with O_NOFOLLOW (and
 * O_NONBLOCK, so a FIFO cannot hang the call), a file to create is created
 * through a handle on its directory that was checked first, and every handle
 * is checked before use: where it really is (/proc/self/fd) must be inside
 * `root`, and a file must be a regular file. The caller reads and writes
 * through the handle it gets, never the path again.
 */
export async function openChecked(root: string, real: string, asked: string, mode: OpenMode): Promise<FileHandle> {
  const handle =
    mode === "write"
      ? await createInDirectory(root, real, asked)
      : await attempt(() => open(real, FLAGS[mode] | O_NOFOLLOW | O_NONBLOCK), asked);
  try {
    await assertInside(root, handle, real, asked);
    if (!(await handle.stat()).isFile()) {
      throw new ReinError("tool_failed", `${asked} is not a regular file; expected a file path (use list_files for directories)`);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The entries of a directory inside `root`, read through a handle checked like a file's. */
export async function readDirectoryChecked(root: string, real: string, asked: string): Promise<Dirent[]> {
  const handle = await directoryHandle(root, real, asked, false);
  try {
    return await readdir(hasProcFd ? `${PROC_FD}/${handle.fd}` : real, { withFileTypes: true });
  } finally {
    await handle.close();
  }
}

/**
 * The file is created (O_CREAT without O_TRUNC: it is cut only once its
 * handle checked out) through `/proc/self/fd/<directory>/<name>`, inside
 * the directory handle that was checked, wherever that directory has moved.
 */
async function createInDirectory(root: string, real: string, asked: string): Promise<FileHandle> {
  const directory = await directoryHandle(root, dirname(real), asked, true);
  try {
    const within = hasProcFd ? `${PROC_FD}/${directory.fd}/${basename(real)}` : real;
    return await attempt(() => open(within, FLAGS.write | O_NOFOLLOW | O_NONBLOCK, 0o666), asked);
  } finally {
    await directory.close();
  }
}

/** A checked handle on a directory inside `root`; with `create`, missing directories are made, each inside its checked parent. */
async function directoryHandle(root: string, real: string, asked: string, create: boolean): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    if (!create || real === root || (error as NodeJS.ErrnoException).code !== "ENOENT") throw refusal(error, asked);
    const parent = await directoryHandle(root, dirname(real), asked, true);
    try {
      const within = hasProcFd ? `${PROC_FD}/${parent.fd}/${basename(real)}` : real;
      await mkdir(within).catch((made: NodeJS.ErrnoException) => {
        if (made.code !== "EEXIST") throw made;
      });
      handle = await attempt(() => open(within, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), asked);
    } finally {
      await parent.close();
    }
  }
  try {
    await assertInside(root, handle, real, asked);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function attempt(opening: () => Promise<FileHandle>, asked: string): Promise<FileHandle> {
  try {
    return await opening();
  } catch (error) {
    throw refusal(error, asked);
  }
}

function refusal(error: unknown, asked: string): unknown {
  if ((error as NodeJS.ErrnoException).code === "ELOOP") {
    return new ReinError(
      "workspace_violation",
      `${JSON.stringify(asked)} is refused: it was a symlink when it was opened; expected a path inside the run's workspace`,
      { details: { path: asked } },
    );
  }
  return error;
}

/**
 * Where the handle really is must be inside `root`. Linux says so through
 * /proc/self/fd. Elsewhere the handle must be the very file `real` names,
 * and `real` must still be its own real path: that narrows the race but
 * cannot close it.
 */
async function assertInside(root: string, handle: FileHandle, real: string, asked: string): Promise<void> {
  if (hasProcFd) {
    const location = await readlink(`${PROC_FD}/${handle.fd}`);
    if (location === root || location.startsWith(root + sep)) return;
  } else {
    const [opened, named, canonical] = await Promise.all([
      handle.stat(),
      lstat(real).catch(() => undefined),
      realpath(real).catch(() => undefined),
    ]);
    if (named && canonical === real && named.dev === opened.dev && named.ino === opened.ino) return;
  }
  throw new ReinError(
    "workspace_violation",
    `${JSON.stringify(asked)} is refused: what was opened lies outside the run's workspace (a path component was swapped for a symlink); expected a path inside the run's workspace`,
    { details: { path: asked } },
  );
}
