import { createRequire } from "node:module";
import type * as BullMQ from "bullmq";

const require = createRequire(import.meta.url);
let loaded: typeof BullMQ | undefined;

/**
 * BullMQ, loaded when this process first opens a queue rather than with
 * `@rein/runtime`: it is some 200 CommonJS modules (~140 ms of CPU per
 * start), every CLI command builds the runtime, and one that only reads runs
 * (`rein status`) opens no queue. The consumers (`@rein/consumer`) import it
 * as usual. It is CommonJS, so a synchronous require gives the same module
 * every `import "bullmq"` gets.
 */
export function loadBullmq(): typeof BullMQ {
  loaded ??= require("bullmq") as typeof BullMQ;
  return loaded;
}
