export { submitGoal, type SubmitOptions } from "./intake/submit-goal.ts";
export { startController, type ControllerOptions } from "./controller/controller.ts";
export { transition, type Transition, type TransitionSettings } from "./controller/transition.ts";
export { startRoles, ROLE_NAMES, type RoleName, type RunningRoles, type StartRolesOptions } from "./roles/start-roles.ts";
export { buildRegistry, buildTooling, type Tooling } from "./roles/tooling.ts";
export { providerForRole, roleTable } from "./roles/role-providers.ts";
export { decideApproval } from "./approvals/decide-approval.ts";
export { ensureRedis, startEmbeddedRedis, type RedisHandle } from "./redis/embedded-redis.ts";
export { loadExample, type LoadedExample } from "./examples/load-example.ts";
