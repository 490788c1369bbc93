// A step worker reduced to one call: runs a side-effecting run_command through the executor and is SIGKILLed by the test mid-call.
import { Redis } from "ioredis";
import { PolicyRule } from "@rein/contracts";
import { RedisKeys } from "../../src/redis/keys.ts";
import { IdempotencyStore } from "../../src/stores/idempotency-store.ts";
import { builtinTools, Workspace } from "@rein/tools";
import { harness } from "@rein/tools/testing";
import { crashCall, CRASH_SURFACE } from "./crash-call.ts";

const redis = new Redis(process.env.CRASH_REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
const keys = new RedisKeys(process.env.CRASH_PREFIX ?? "");
const workspace = await Workspace.open(process.env.CRASH_WORKSPACE ?? "");
const { executor, context } = harness({
  tools: builtinTools({ commands: ["node"] }),
  surface: CRASH_SURFACE,
  workspace,
  policy: [PolicyRule.parse({ id: "allow-node", tool: "run_command", commands: ["node"], decision: "allow" })],
  deps: { idempotency: new IdempotencyStore(redis, keys) },
});
await executor.execute(crashCall(), 0, context());
process.stdout.write("finished\n");
redis.disconnect();
