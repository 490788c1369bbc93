import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { ReinError } from "@rein/contracts";

/** The bundle `npm run build` writes beside this module in dist/ (write-browser-script.ts). */
export const BUILT_SCRIPT = "dashboard-script.js";

const BROWSER_DIR = fileURLToPath(new URL("./browser/", import.meta.url));

/**
 * The dashboard's browser code (browser/*.ts) as the one script the page
 * inlines: the bundle `npm run build` wrote beside this module (dist/, a
 * packed install), or, run from the TypeScript sources (tests, `rein`
 * through tsx after an edit), browser/ bundled now. Read once per process.
 */
export function browserScript(): string {
  const built = new URL(`./${BUILT_SCRIPT}`, import.meta.url);
  if (existsSync(built)) return readFileSync(built, "utf8");
  if (!existsSync(BROWSER_DIR)) {
    throw new ReinError(
      "not_found",
      `the dashboard's browser code is neither built (${fileURLToPath(built)}) nor here as sources (${BROWSER_DIR}); expected \`npm run build\` to write ${BUILT_SCRIPT}`,
    );
  }
  return bundleBrowserScript();
}

/**
 * Bundles browser/main.ts and what it imports into one classic script (an
 * IIFE: the page's inline script has no module loader). esbuild is a dev
 * dependency, loaded only here: a built install never bundles.
 */
export function bundleBrowserScript(): string {
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
  const result = esbuild.buildSync({
    entryPoints: ["main.ts"],
    absWorkingDir: BROWSER_DIR,
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  // Types from the server are erased; a value import would ship server code (and zod) to the browser.
  const outside = Object.keys(result.metafile.inputs).filter(
    (input) => input.startsWith("..") || isAbsolute(input) || input.includes("node_modules"),
  );
  if (outside.length > 0) {
    throw new ReinError(
      "contract_invalid",
      `the dashboard's browser code imports ${outside.join(", ")}; expected only browser/ files and \`import type\` from the server`,
    );
  }
  const script = result.outputFiles[0]?.text ?? "";
  // The script is inlined: this text would end its <script> element early.
  if (/<\/script/i.test(script))
    throw new ReinError(
      "contract_invalid",
      "the dashboard's browser code holds the text </script; expected it nowhere, not even in a string",
    );
  return script;
}
