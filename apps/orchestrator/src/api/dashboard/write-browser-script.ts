import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { BUILT_SCRIPT, bundleBrowserScript } from "./browser-script.ts";

/**
 * `npm run build`'s second half (after tsc): bundles the dashboard's browser
 * code into dist/api/dashboard/dashboard-script.js, beside the compiled
 * dashboard-page.js that inlines it, so a built or packed install never bundles.
 */
const out = resolve(import.meta.dirname, "../../../dist/api/dashboard", BUILT_SCRIPT);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, bundleBrowserScript());
