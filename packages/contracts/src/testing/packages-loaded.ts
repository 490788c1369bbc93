import { execFileSync } from "node:child_process";

// Run in the child before the import: every module it loads, ESM or CommonJS, is reported by URL.
const RECORDER = `
const { register } = await import("node:module");
const { MessageChannel } = await import("node:worker_threads");
const { port1, port2 } = new MessageChannel();
const urls = new Set();
port1.on("message", (url) => urls.add(url));
port1.unref();
register("data:text/javascript," + encodeURIComponent("let port; export function initialize(data) { port = data.port; } export async function load(url, context, next) { port.postMessage(url); return next(url, context); }"), { data: { port: port2 }, transferList: [port2] });
await import(process.env.PROBED_SPECIFIER);
await new Promise((resolve) => setTimeout(resolve, 100));
const { createRequire } = await import("node:module");
const all = [...urls, ...Object.keys(createRequire(import.meta.url).cache)];
const names = new Set(all.flatMap((url) => { const match = /.*node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url); return match ? [match[1]] : []; }));
process.stdout.write(JSON.stringify([...names].sort()));
`;

/**
 * The npm packages a fresh Node process loads when it imports `specifier`
 * (resolved from `cwd`, on the workspace's TypeScript sources): what a
 * process that imports one of Rein's faces pays for at start.
 */
export function packagesLoadedBy(specifier: string, cwd: string): string[] {
  const output = execFileSync(process.execPath, ["--conditions=@rein/source", "--import", "tsx", "--input-type=module", "-e", RECORDER], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PROBED_SPECIFIER: specifier },
  });
  return JSON.parse(output) as string[];
}
