import { afterEach, beforeEach } from "vitest";
import type { Workspace } from "../../src/tools/workspace.ts";
import { tempWorkspace } from "./harness.ts";

export interface TempWorkspace {
  readonly workspace: Workspace;
  /** The temporary directory the workspace is in: room for files outside it. */
  readonly dir: string;
}

/** A temporary workspace fresh for each test of the file or `describe` that calls this, removed after it. */
export function workspacePerTest(): TempWorkspace {
  let open: Awaited<ReturnType<typeof tempWorkspace>> | undefined;
  beforeEach(async () => {
    open = await tempWorkspace();
  });
  afterEach(async () => {
    await open?.cleanup();
    open = undefined;
  });
  const current = () => {
    if (!open) throw new Error("the temporary workspace is open only while a test runs");
    return open;
  };
  return {
    get workspace() {
      return current().workspace;
    },
    get dir() {
      return current().dir;
    },
  };
}
