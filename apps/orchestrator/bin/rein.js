#!/usr/bin/env node
// Runs the compiled CLI (dist/). In a checkout whose TypeScript sources are
// missing from dist or newer than it, it runs the sources through tsx
// instead: always the code on disk, at ~3.5 s of CPU per start until
// `npm run build` (which `npm test` and `npm run demo` do first).
import { register } from "node:module";
import { fileURLToPath } from "node:url";
import { compiledIsCurrent } from "./dist-freshness.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

let main;
if (compiledIsCurrent(packageDir)) {
  ({ main } = await import("../dist/cli/main.js"));
} else {
  if (process.stderr.isTTY) process.stderr.write("rein: dist/ is missing or older than src/; running the TypeScript sources (slow start; `npm run build` fixes it)\n");
  const { register: registerTsx } = await import("tsx/esm/api");
  registerTsx();
  // Registered after tsx so it runs first: workspace packages then resolve to their sources, not to dist.
  register("data:text/javascript,export const resolve = (specifier, context, next) => next(specifier, { ...context, conditions: [...context.conditions, '@rein/source'] });");
  ({ main } = await import("../src/cli/main.ts"));
}
process.exit(await main(process.argv.slice(2)));
