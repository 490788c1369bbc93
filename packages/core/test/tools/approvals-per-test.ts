import { afterEach, beforeEach } from "vitest";
import { ApprovalStore, type ApprovalStoreOptions } from "../../src/approvals/approval-store.ts";
import { type RedisForTest, redisForTest } from "./redis-harness.ts";
import { type TempWorkspace, workspacePerTest } from "./workspace-per-test.ts";

export interface ApprovalsFixture extends TempWorkspace {
  /** The test's own Redis connection and key prefix. */
  readonly env: RedisForTest;
  /** Approvals under that prefix, pending for an hour unless the options say otherwise. */
  readonly approvals: ApprovalStore;
}

/**
 * For each test of the file that calls this: a temporary workspace, a Redis
 * prefix of its own and an approval store on it; the prefix's keys are
 * deleted and the workspace removed after the test.
 */
export function approvalsPerTest(options: Partial<ApprovalStoreOptions> = {}): ApprovalsFixture {
  const temp = workspacePerTest();
  let open: { env: RedisForTest; approvals: ApprovalStore } | undefined;
  beforeEach(() => {
    const env = redisForTest();
    open = { env, approvals: new ApprovalStore(env.redis, env.keys, { ttlSeconds: 3600, ...options }) };
  });
  afterEach(async () => {
    await open?.env.close();
    open = undefined;
  });
  const current = () => {
    if (!open) throw new Error("the approval store is open only while a test runs");
    return open;
  };
  return {
    get workspace() {
      return temp.workspace;
    },
    get dir() {
      return temp.dir;
    },
    get env() {
      return current().env;
    },
    get approvals() {
      return current().approvals;
    },
  };
}
