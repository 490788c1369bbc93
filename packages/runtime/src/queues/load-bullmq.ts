import { createRequire } from "node:module";
import type * as BullMQ from "bullmq";

const require = createRequire(import.meta.url);
let loaded: typeof BullMQ | undefined;

/**
 * BullMQ, loaded on first use rather than with `@rein/runtime`: it is some 200
 * CommonJS modules (~140 ms of CPU per start), and a process that only reads
 * runs from Redis (`rein status`) never needs it. It is CommonJS, so a
 * synchronous require gives the same module every `import "bullmq"` gets.
 */
export function loadBullmq(): typeof BullMQ {
  loaded ??= require("bullmq") as typeof BullMQ;
  return loaded;
}
