import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/**
 * The system Chromium (Debian's `chromium` package; CHROMIUM_PATH overrides).
 * Playwright's own browser download is never used: CI installs the package
 * (.ci/run), and a machine without network could not download one anyway.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Why the browser suite cannot run here, or undefined when it can. In CI a
 * missing Chromium is a failure, not a skip: the suite must count there.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const why = `no Chromium at ${CHROMIUM_PATH}; expected the system package (apt-get install -y chromium) or CHROMIUM_PATH naming one`;
  if (process.env.CI) throw new Error(`browser tests: ${why}`);
  process.stderr.write(`browser tests SKIPPED: ${why}\n`);
  return why;
}

/** Headless, without a sandbox (CI runs as root) and without the background traffic a fresh profile starts. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update"],
  });
}
