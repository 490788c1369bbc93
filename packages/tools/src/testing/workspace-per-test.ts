import { afterEach, beforeEach } from "vitest";
import { fixtureAround, liveView } from "@rein/contracts/testing";
import type { Workspace } from "../workspace.ts";
import { tempWorkspace } from "./executor-harness.ts";

export interface TempWorkspace {
  readonly workspace: Workspace;
  /** The temporary directory the workspace is in: room for files outside it. */
  readonly dir: string;
}

/** A temporary workspace fresh for each test of the file or `describe` that calls this, removed after it. */
export function workspacePerTest(): TempWorkspace {
  return liveView(
    fixtureAround(beforeEach, afterEach, "the temporary workspace", tempWorkspace, (temp) => temp.cleanup()),
    ["workspace", "dir"],
  );
}
