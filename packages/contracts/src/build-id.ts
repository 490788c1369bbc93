import { z } from "zod";

/**
 * A deployment's build, as its processes announce it (`rein worker
 * --build-id`, config `buildId`). A run started under a build has its steps
 * taken only by step workers of that build, so a rolling upgrade leaves the
 * runs in flight on the workers they started with.
 */
export const BuildId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "expected 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
export type BuildId = z.infer<typeof BuildId>;
