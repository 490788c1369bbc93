import { describe, expect, it } from "vitest";
import { describeOrigin } from "../../src/cli/workspace-commands.ts";
import type { WorkspaceOrigin } from "@rein/controller";

const origin = (workspace: string): WorkspaceOrigin => ({
  schemaVersion: 1,
  runId: "run_o1",
  kind: "git-worktree",
  source: "/home/me/project",
  workspace,
  gitDir: "/home/me/project/.git/worktrees/run_o1",
  branch: "rein/run_o1",
  baseCommit: "0".repeat(40),
  includedDirty: false,
  createdAt: new Date(0).toISOString(),
});

describe("the workspace line rein run prints first", () => {
  it("names the workspace, the directory and the branch", () => {
    expect(describeOrigin(origin("/var/rein/run_o1"))).toBe(
      "workspace: /var/rein/run_o1 (git worktree of /home/me/project on branch rein/run_o1; /home/me/project itself is not touched)",
    );
  });

  it("warns when the workspace lies inside the directory, where its test runner would find the copy", () => {
    expect(describeOrigin(origin("/home/me/project/.rein/workspaces/run_o1"))).toMatch(
      /\nnote: the workspace lies inside \/home\/me\/project .* ignore \.rein\/ or set workspaceRoot elsewhere$/,
    );
  });
});
