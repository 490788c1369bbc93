import type { Dirent } from "node:fs";
import { type FileHandle, lstat, mkdir, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ReinError } from "@rein/contracts";
import { type OpenMode, openChecked, readDirectoryChecked } from "./checked-open.ts";
import { pathSizeProblem } from "./path-limits.ts";

/**
 * The directory a run's tools may touch. Every path a tool receives goes
 * through `resolve`, which refuses traversal, absolute paths outside the
 * root, and symlinks whose target leaves it. A tool that reads or writes a
 * file opens it with `openFile`, which does not trust that answer to still
 * hold when it opens: the handle itself is checked (checked-open.ts).
 */
export class Workspace {
  private constructor(
    readonly root: string,
    /** Why the run's directory cannot be used here, for a workspace opened where it is missing. */
    private readonly missing?: string,
  ) {}

  static async open(root: string): Promise<Workspace> {
    await mkdir(root, { recursive: true });
    return new Workspace(await realpath(root));
  }

  /** The workspace of one run under a shared root, made if missing: where the run is taken in. */
  static forRun(workspaceRoot: string, runId: string): Promise<Workspace> {
    return Workspace.open(runDirectory(workspaceRoot, runId));
  }

  /**
   * The workspace of a run already taken in, where its steps and checks run.
   * Never made here: a worker whose root is not the one the run was taken in
   * under would otherwise work on an empty directory. Where it is missing,
   * every use of it fails with `workspace_invalid`, saying so (a file
   * tool's call is refused, a plugin's fails); tools that touch no file
   * still run.
   */
  static async ofRun(workspaceRoot: string, runId: string): Promise<Workspace> {
    const dir = runDirectory(workspaceRoot, runId);
    try {
      return new Workspace(await realpath(dir));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      return new Workspace(
        dir,
        `the workspace ${dir} of run ${runId} is not on this machine; expected this process's workspaceRoot (REIN_WORKSPACE_ROOT) to be the directory the run was taken in under, shared with the machine that took it in`,
      );
    }
  }

  /** The root, for a tool that hands the whole directory to a process (a plugin); throws where the run's directory is missing. */
  directory(): string {
    this.assertPresent();
    return this.root;
  }

  /** The relative form of a path inside the workspace, for scopes and policy globs. */
  relativePath(path: string): string {
    const rel = relative(this.root, this.lexical(path));
    return rel === "" ? "." : rel.split(sep).join("/");
  }

  /**
   * Resolves `path` (relative to the root, or absolute inside it) to a real
   * path inside the workspace. The target need not exist; its nearest
   * existing ancestor must resolve inside the root.
   */
  async resolve(path: string): Promise<string> {
    const lexical = this.lexical(path);
    let probe = lexical;
    const rest: string[] = [];
    for (;;) {
      try {
        const real = await realpath(probe);
        const full = rest.length === 0 ? real : join(real, ...rest.reverse());
        this.assertInside(full, path, real !== probe ? "a symlink that leaves the workspace" : undefined);
        return full;
      } catch (error) {
        if (ReinError.isInstance(error)) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
        // realpath fails with ENOENT on a dangling symlink too; writing
        // through one would create its target wherever it points.
        if (await isSymlink(probe)) {
          throw new ReinError(
            "workspace_violation",
            `${JSON.stringify(path)} is refused: it goes through a symlink whose target does not exist; expected a path inside the run's workspace`,
            { details: { path } },
          );
        }
        const parent = resolve(probe, "..");
        if (parent === probe) throw error;
        rest.push(probe.slice(parent.length + 1));
        probe = parent;
      }
    }
  }

  /**
   * Opens `path` once for a file tool, checked on its handle: inside the
   * workspace whatever was swapped in since it was resolved, and a regular
   * file. Read and write through the handle, then close it.
   */
  async openFile(path: string, mode: OpenMode): Promise<FileHandle> {
    return openChecked(this.root, await this.resolve(path), path, mode);
  }

  /**
   * The entries of the directory at `path`, a real path inside the
   * workspace (as `resolve` returns it, or found by walking from one): read
   * through a checked handle, and refused when it is a symlink by then.
   */
  async readDirectory(path: string): Promise<Dirent[]> {
    return readDirectoryChecked(this.root, this.lexical(path), path);
  }

  private assertPresent(): void {
    if (this.missing !== undefined) throw new ReinError("workspace_invalid", this.missing, { details: { failure: "fatal" } });
  }

  private lexical(path: string): string {
    this.assertPresent();
    if (typeof path !== "string" || path.length === 0) {
      throw new ReinError("workspace_violation", "expected a non-empty path relative to the workspace");
    }
    if (path.includes("\0")) throw new ReinError("workspace_violation", "paths may not contain NUL bytes");
    // Before any resolution: resolving walks up one missing component at a time.
    const tooBig = pathSizeProblem(path);
    if (tooBig)
      throw new ReinError("workspace_violation", `${JSON.stringify(`${path.slice(0, 64)}…`)} is refused: ${tooBig}`, {
        details: { invalidInput: true },
      });
    const full = isAbsolute(path) ? resolve(path) : resolve(this.root, path);
    this.assertInside(full, path, isAbsolute(path) ? "an absolute path outside the workspace" : "path traversal");
    return full;
  }

  private assertInside(full: string, asked: string, why = "a path outside the workspace"): void {
    if (full !== this.root && !full.startsWith(this.root + sep)) {
      throw new ReinError(
        "workspace_violation",
        `${JSON.stringify(asked)} is refused: ${why}; expected a path inside the run's workspace`,
        { details: { path: asked } },
      );
    }
  }
}

function runDirectory(workspaceRoot: string, runId: string): string {
  if (!/^[a-zA-Z0-9_-]+$/.test(runId)) {
    throw new ReinError("workspace_violation", `run id ${JSON.stringify(runId)} is not a safe directory name`);
  }
  return join(workspaceRoot, runId);
}

async function isSymlink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}
