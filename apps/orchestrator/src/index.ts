export {
  buildRegistry,
  buildTooling,
  type ControllerOptions,
  intakeEvents,
  knownToolNames,
  providerForRole,
  ROLE_NAMES,
  type RoleName,
  type RunningRoles,
  roleTable,
  type StartRolesOptions,
  type SubmitOptions,
  startController,
  startRoles,
  submitGoal,
  type Tooling,
  type Transition,
  type TransitionSettings,
  transition,
  transitionSettings,
} from "@rein/controller";
export { decideApproval } from "./approvals/decide-approval.ts";
export { ensureRedis, freePort, startEmbeddedRedis, type RedisHandle } from "./redis/embedded-redis.ts";
export { loadExample, type LoadedExample } from "./examples/load-example.ts";
export { createHttpApi, type HttpApiOptions } from "./api/http-api.ts";
