import { constants, type Stats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { errorMessage } from "@rein/contracts";
import type { Workspace } from "@rein/tools";

export interface FileCheckLimits {
  /** Largest file a check reads. @defaultValue 4 MiB */
  maxBytes?: number;
  /** How long reading it may take. @defaultValue 5000 */
  timeoutMs?: number;
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 5_000;

export type CheckedFile = { ok: true; text: string } | { ok: false; problem: string };

/**
 * Reads the file a `file_contains` check names, as a planner-written check
 * must be read: inside the workspace (no link leading out of it), a regular
 * file only, decided on the open handle, at most `maxBytes`, within
 * `timeoutMs`. The open never waits: a FIFO that `run_command` made opens
 * at once (non-blocking) and is refused as not a regular file, where a
 * plain read would hold a libuv thread until a writer came.
 */
export async function readCheckedFile(workspace: Workspace, path: string, limits: FileCheckLimits = {}): Promise<CheckedFile> {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  let handle: FileHandle | undefined;
  try {
    const real = await workspace.resolve(path);
    // The real path has no link left in it: a link swapped in at its end since is refused (ELOOP), not followed.
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, problem: `it is ${kindOf(info)}, and a file check reads regular files only` };
    if (info.size > maxBytes) return { ok: false, problem: `it is ${info.size} bytes, and a file check reads at most ${maxBytes}` };
    return await withTimeout(readAtMost(handle, maxBytes), limits.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  } catch (error) {
    return { ok: false, problem: problemOf(error) };
  } finally {
    await handle?.close().catch(() => {});
  }
}

async function readAtMost(handle: FileHandle, maxBytes: number): Promise<CheckedFile> {
  // One byte past the cap tells a file that grew after its stat from one that fits.
  const buffer = Buffer.alloc(Math.min(maxBytes + 1, 64 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
    total += bytesRead;
    if (total > maxBytes)
      return { ok: false, problem: `it grew past ${maxBytes} bytes while it was read, and a file check reads at most ${maxBytes}` };
  }
  return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
}

async function withTimeout(reading: Promise<CheckedFile>, timeoutMs: number): Promise<CheckedFile> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckedFile>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, problem: `reading it took longer than ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
  }
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isDirectory()) return "a directory";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "not a regular file";
}

function problemOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return "it is a symbolic link, and a file check does not follow links";
  if (code === "ENXIO") return "it is a socket or device, and a file check reads regular files only";
  if (code === "ENOENT") return "no such file";
  return errorMessage(error);
}
