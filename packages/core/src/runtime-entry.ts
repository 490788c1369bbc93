/**
 * `@rein/core/runtime`: the runtime and what opens it, for a process that
 * reads and writes runs but builds no tools, models or roles (`rein status`,
 * a script that submits goals). It loads about half the modules
 * `@rein/core` does, and a command's start is mostly module loading. The same
 * modules as `@rein/core`'s: a value from either is the same value.
 */
export { closestName } from "@rein/contracts";
export { loadConfig, type ReinConfig, type ReinConfigInput } from "./config/config.ts";
export { DEFAULT_REDIS_URL, redisUrlFromEnv } from "./config/redis-url.ts";
export { errorMessage, ReinError } from "@rein/contracts";
export { logFileDestination, type LogLevel, logLevelFrom } from "@rein/guard";
export { assertRedis, pingRedis } from "./redis/connection.ts";
export { createRuntime, type ReinRuntime, type RuntimeOptions } from "./runtime.ts";
export { UNSANDBOXED_WARNING } from "@rein/sandbox";
