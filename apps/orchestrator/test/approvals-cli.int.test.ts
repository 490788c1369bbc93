import { afterAll, describe, expect, it } from "vitest";
import { ApprovalSigner, ensureKeyPairFiles, loadPrivateKey } from "@rein/signing";
import { ApprovalStore, createRuntime, ReinConfig, type ReinRuntime } from "@rein/runtime";
import { cliEnv, rein } from "./support/cli.ts";

let runtime: ReinRuntime | undefined;
afterAll(async () => {
  if (!runtime) return;
  const keys = await runtime.redis.keys(`${runtime.config.prefix}:*`);
  if (keys.length > 0) await runtime.redis.del(...keys);
  await runtime.close();
});

describe("rein approvals", () => {
  it("marks a decision forged in Redis, and not a signed one", async () => {
    const env = cliEnv();
    runtime = createRuntime(ReinConfig.parse({ redisUrl: env.REDIS_URL, prefix: env.REIN_PREFIX, workspaceRoot: env.REIN_WORKSPACE_ROOT }));
    const dir = env.REIN_KEYS_DIR as string;
    ensureKeyPairFiles(dir, "approval");
    const signer = new ApprovalSigner(loadPrivateKey("approval", { dir, env: {} }) as NonNullable<ReturnType<typeof loadPrivateKey>>);
    const store = new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: 3600 });
    const action = (service: string) => ({ tool: "restart_service", args: { service }, scope: { services: [service] } });
    const signed = await store.ask("run_1", "s1", action("api"), "1:call_api");
    await store.decide(signed.approval.approvalId, { decision: "approved", approver: "alice" }, signer);
    const forged = await store.ask("run_1", "s1", action("db"), "1:call_db");
    await runtime.redis.hset(runtime.keys.approval(forged.approval.approvalId), {
      status: "approved",
      approver: "cli:alice",
      decidedAt: new Date().toISOString(),
    });

    const listed = await rein(["approvals", "--all"], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${forged.approval.approvalId}  FORGED: not a signed decision`);
    expect(listed.stdout).not.toContain(`${signed.approval.approvalId}  FORGED`);
    expect(listed.stdout).toContain(`${signed.approval.approvalId}  approved`);
  });
});
