import { createHash } from "node:crypto";
import { chmod, lstat, mkdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ReinError } from "@rein/contracts";
import { Workspace } from "@rein/tools";
import { git, gitText, nulFields } from "./git.ts";
import { type ChangedFile, changedFiles, snapshotRun } from "./run-changes.ts";
import type { WorkspaceOrigin } from "./workspace-origin.ts";

/** A file as git records it: its mode (100644, 100755, 120000 for a symlink) and blob id. */
interface Entry {
  mode: string;
  oid: string;
}

export interface ApplyResult {
  /** Files written to (or deleted from) the source directory. */
  applied: ChangedFile[];
  /** Files the source already had exactly as the run left them. */
  unchanged: ChangedFile[];
}

/**
 * Writes a run's changes into the directory it ran on. Every changed path is
 * first compared with the run's base: when the directory changed under the
 * same path since the run began, nothing is written and the error names the
 * paths. Paths are resolved inside the directory as a run's tools resolve
 * them, so a change cannot reach through a symlink out of it.
 */
export async function applyRun(origin: WorkspaceOrigin): Promise<ApplyResult> {
  const finalCommit = await snapshotRun(origin);
  const files = await changedFiles(origin, finalCommit);
  if (files.length === 0) return { applied: [], unchanged: [] };
  const paths = files.map((file) => file.path);
  const [base, wanted] = await Promise.all([entriesAt(origin, origin.baseCommit, paths), entriesAt(origin, finalCommit, paths)]);
  const format = await gitText(["rev-parse", "--show-object-format"], { gitDir: origin.gitDir });
  const target = await Workspace.open(origin.source);
  const toWrite: ChangedFile[] = [];
  const unchanged: ChangedFile[] = [];
  const conflicts: string[] = [];
  for (const file of files) {
    const current = await currentEntry(await target.resolve(file.path), format);
    if (sameContent(current, wanted.get(file.path))) unchanged.push(file);
    else if (sameContent(current, base.get(file.path))) toWrite.push(file);
    else conflicts.push(file.path);
  }
  if (conflicts.length > 0) {
    throw new ReinError(
      "workspace_invalid",
      `${origin.source} changed since run ${origin.runId} began under ${conflicts.join(", ")}; nothing was applied. ` +
        `Expected those files as they were at the run's start (${origin.baseCommit.slice(0, 12)}); ` +
        (origin.branch
          ? `merge the run's branch instead (git merge ${origin.branch}) or apply \`rein diff ${origin.runId}\` by hand`
          : `apply \`rein diff ${origin.runId}\` by hand`),
      { details: { conflicts } },
    );
  }
  for (const file of toWrite) await writeEntry(origin, await target.resolve(file.path), wanted.get(file.path));
  return { applied: toWrite, unchanged };
}

async function entriesAt(origin: WorkspaceOrigin, commit: string, paths: readonly string[]): Promise<Map<string, Entry>> {
  const listing = await git(["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", commit, "--", ...paths], {
    gitDir: origin.gitDir,
  });
  const entries = new Map<string, Entry>();
  for (const line of nulFields(listing.stdout)) {
    const [meta, path] = splitOnce(line, "\t");
    const [mode, , oid] = meta.split(" ");
    if (mode && oid) entries.set(path, { mode, oid });
  }
  return entries;
}

/** The source's file as git would record it, or undefined when absent; a directory is never equal to a file. */
async function currentEntry(path: string, format: string): Promise<Entry | undefined> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats) return undefined;
  if (stats.isSymbolicLink()) return { mode: "120000", oid: blobId(Buffer.from(await readlink(path)), format) };
  if (!stats.isFile()) return { mode: "040000", oid: "" };
  return { mode: stats.mode & 0o111 ? "100755" : "100644", oid: blobId(await readFile(path), format) };
}

/** Content and kind (file or symlink); an executable bit alone is not a conflict. */
function sameContent(left: Entry | undefined, right: Entry | undefined): boolean {
  if (!left || !right) return left === right;
  return left.oid === right.oid && (left.mode === "120000") === (right.mode === "120000");
}

async function writeEntry(origin: WorkspaceOrigin, path: string, entry: Entry | undefined): Promise<void> {
  await rm(path, { force: true });
  if (!entry) return;
  const content = (await git(["cat-file", "blob", entry.oid], { gitDir: origin.gitDir })).stdout;
  await mkdir(dirname(path), { recursive: true });
  if (entry.mode === "120000") {
    await symlink(content.toString("utf8"), path);
    return;
  }
  await writeFile(path, content);
  await chmod(path, entry.mode === "100755" ? 0o755 : 0o644);
}

function blobId(content: Buffer, format: string): string {
  return createHash(format === "sha256" ? "sha256" : "sha1")
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest("hex");
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
}
