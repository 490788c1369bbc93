import { afterEach, beforeEach } from "vitest";
import { ApprovalStore, type ApprovalStoreOptions } from "../../src/approvals/approval-store.ts";
import { fixtureAround, liveView } from "@rein/contracts/testing";
import { tempWorkspace, type TempWorkspace } from "@rein/tools/testing";
import { type RedisForTest, redisForTest } from "./redis-harness.ts";

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
  const current = fixtureAround(
    beforeEach,
    afterEach,
    "the approval store",
    async () => {
      const temp = await tempWorkspace();
      const env = redisForTest();
      return { ...temp, env, approvals: new ApprovalStore(env.redis, env.keys, { ttlSeconds: 3600, ...options }) };
    },
    async ({ env, cleanup }) => {
      await env.close();
      await cleanup();
    },
  );
  return liveView(current, ["workspace", "dir", "env", "approvals"]);
}
