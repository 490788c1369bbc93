import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis } from "@rein/runtime";
import { type CliResult, cliEnv } from "../support/cli.ts";
import { findPnpm, pnpmRun } from "../support/pnpm.ts";

const ROOT = resolve(import.meta.dirname, "../../../..");
// Every package of the workspace: the orchestrator's install needs them all.
const PACKAGES = [...readdirSync(join(ROOT, "packages")).map((name) => `packages/${name}`), "apps/orchestrator"];
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const pnpm = findPnpm();

// A user's file: the three entry points the README names, under the strictest settings a consumer is likely to use.
const CONSUMER = `import { submitGoal, startRoles } from "@rein/orchestrator";
import { defineTool, z } from "@rein/tools";

export const shout = defineTool({
  name: "shout",
  description: "Upper-cases a text.",
  effect: "read",
  input: z.object({ text: z.string().max(200) }),
  async run({ text }) {
    return text.toUpperCase();
  },
});

export const entryPoints: [typeof submitGoal, typeof startRoles] = [submitGoal, startRoles];
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    skipLibCheck: false,
    types: ["node"],
  },
  files: ["consumer.ts"],
};

// A project that only defines tools: what it installs, and a tool it defines run through the executor.
const TOOL_AUTHOR = `import { createToolExecutor, defineTool, ToolRegistry, Workspace, z } from "@rein/tools";

const shout = defineTool({
  name: "shout",
  description: "Upper-cases a text.",
  effect: "read",
  input: z.object({ text: z.string().max(200) }),
  async run({ text }) {
    return text.toUpperCase();
  },
});
const executor = createToolExecutor({
  registry: new ToolRegistry([shout]),
  trace: { append: async () => undefined },
  artifacts: { put: async () => "art_1" },
  config: { policy: [], observations: { maxBytes: 16384, maxLines: 200 } },
});
const outcome = await executor.execute({ type: "tool_call", id: "call_1", name: "shout", input: { text: "hello" } }, 0, {
  runId: "run_1",
  stepId: "s1",
  attempt: 1,
  parentStepId: null,
  surface: [{ name: "shout", scope: {} }],
  policy: [],
  workspace: await Workspace.open(process.cwd()),
  signal: new AbortController().signal,
  budget: { maxToolCalls: 5, deadline: Date.now() + 60000 },
  callsSoFar: 0,
});
process.stdout.write(outcome.observation.content);
`;

// Packing needs dist/ (npm test builds first) and pnpm. The install prefers pnpm's local store: resolving the packed
// packages' ranges afresh may pick a version newer than the workspace's lockfile pinned (a transitive @babel/runtime
// did), whose tarball only the registry has, so a strict --offline install fails on what a user's install would fetch.
describe.runIf(pnpm !== undefined)("the packed packages, installed into a project outside the workspace", () => {
  const scratch = mkdtempSync(join(tmpdir(), "rein-packed-"));
  const tarballs = join(scratch, "tarballs");
  const project = join(scratch, "project");
  const toolsProject = join(scratch, "tools-project");
  const env = cliEnv();

  beforeAll(() => {
    // turbo replays its cache when dist/ is current, so this costs little after `npm test`'s build.
    pnpmRun(pnpm, ["exec", "turbo", "run", "build", "--filter=@rein/orchestrator...", "--output-logs=errors-only"], ROOT, 600_000);
    for (const dir of PACKAGES) pnpmRun(pnpm, ["pack", "--pack-destination", tarballs], join(ROOT, dir), 120_000);
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "rein-consumer", private: true, type: "module" })}\n`);
    // The tarballs name each other by version; the overrides point those names at the tarballs, not at a registry.
    const packed = Object.fromEntries(
      readdirSync(tarballs).map((file) => [`@rein/${/^rein-([a-z]+)-/.exec(file)?.[1]}`, `file:${join(tarballs, file)}`]),
    );
    writeFileSync(
      join(project, "pnpm-workspace.yaml"),
      [
        "overrides:",
        ...Object.entries(packed).map(([name, spec]) => `  "${name}": "${spec}"`),
        "allowBuilds:",
        "  esbuild: true",
        "  msgpackr-extract: true",
        "",
      ].join("\n"),
    );
    const typesNode = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies: Record<string, string> })
      .devDependencies["@types/node"];
    pnpmRun(
      pnpm,
      ["add", "--prefer-offline", packed["@rein/orchestrator"] as string, packed["@rein/tools"] as string, `@types/node@${typesNode}`],
      project,
      300_000,
    );
    mkdirSync(toolsProject);
    writeFileSync(join(toolsProject, "package.json"), `${JSON.stringify({ name: "rein-tool-author", private: true, type: "module" })}\n`);
    writeFileSync(
      join(toolsProject, "pnpm-workspace.yaml"),
      ["overrides:", ...Object.entries(packed).map(([name, spec]) => `  "${name}": "${spec}"`), ""].join("\n"),
    );
    pnpmRun(pnpm, ["add", "--prefer-offline", packed["@rein/tools"] as string], toolsProject, 300_000);
  }, 900_000);

  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    const redis = connectRedis(env.REDIS_URL as string);
    const keys = await redis.keys(`${env.REIN_PREFIX}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it("installs for a project that only defines tools zod and the tool kit with what it builds on, without BullMQ, OpenTelemetry, Redis or a model SDK", () => {
    const installed = readdirSync(join(toolsProject, "node_modules", ".pnpm")).filter(
      (entry) => entry !== "node_modules" && !entry.startsWith("lock"),
    );
    const reinPackages = installed.filter((entry) => entry.startsWith("@rein+")).map((entry) => /^@rein\+([a-z]+)@/.exec(entry)?.[1]);
    expect(reinPackages.sort()).toEqual(["contracts", "guard", "presenter", "sandbox", "signing", "tools", "trace"]);
    const unwanted = /^(bullmq|bullmq-otel|ioredis|@opentelemetry\+|@anthropic-ai\+sdk|openai|@modelcontextprotocol\+sdk|pino-pretty)@/;
    expect(installed.filter((entry) => unwanted.test(entry))).toEqual([]);
    expect(installed.some((entry) => entry.startsWith("zod@"))).toBe(true);
    writeFileSync(join(toolsProject, "tool-author.mjs"), TOOL_AUTHOR);
    const output = execFileSync(process.execPath, ["tool-author.mjs"], { cwd: toolsProject, encoding: "utf8", timeout: 60_000 });
    expect(output).toContain("HELLO");
  });

  it("type-checks a file importing submitGoal, startRoles and defineTool under strict tsc", () => {
    writeFileSync(join(project, "consumer.ts"), CONSUMER);
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify(TSCONFIG));
    const result = runTsc(project);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 600_000);

  it("serves the dashboard's built browser code from there, run by its hash", () => {
    // The package holds no TypeScript sources: the page inlines the bundle `npm run build` wrote into dist/ (not an export: read by path).
    const pageModule = pathToFileURL(join(project, "node_modules/@rein/orchestrator/dist/api/dashboard/dashboard-page.js")).href;
    const printPage = `const { dashboardPage } = await import(${JSON.stringify(pageModule)}); process.stdout.write(JSON.stringify(dashboardPage()));`;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", printPage], { cwd: project, encoding: "utf8" });
    const page = JSON.parse(output) as { html: string; contentSecurityPolicy: string };
    const script = /<script>([\s\S]*)<\/script>/.exec(page.html)?.[1] ?? "";
    expect(script).toContain("function showRunPage(");
    expect(page.contentSecurityPolicy).toContain(`script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`);
  });

  it("runs `npx rein run --example bugfix` from there to done", async () => {
    const { child, done } = startNpx(["rein", "run", "--example", "bugfix"], project, env);
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    const run = await done.finally(() => clearTimeout(timer));
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.stdout).toMatch(/: done \(/);
    expect(run.code).toBe(0);
  }, 300_000);
});

function runTsc(cwd: string): { code: number; output: string } {
  try {
    execFileSync(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd, encoding: "utf8", timeout: 480_000 });
    return { code: 0, output: "" };
  } catch (error) {
    const failed = error as { status?: number | null; signal?: string | null; stdout?: string; stderr?: string };
    return {
      code: failed.status ?? 1,
      output: `${failed.signal ? `tsc ended by ${failed.signal}\n` : ""}${failed.stdout ?? ""}${failed.stderr ?? ""}`,
    };
  }
}

function startNpx(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn("npx", ["--offline", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolveDone) => child.once("close", (code) => resolveDone({ code, stdout, stderr })));
  return { child, done };
}
