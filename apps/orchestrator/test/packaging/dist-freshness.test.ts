import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compiledIsCurrent, markDistCurrent } from "../../bin/dist-freshness.js";

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A workspace of the orchestrator and one package, each built at `builtAt` from sources written at `writtenAt`. */
function checkout(writtenAt: Date, builtAt: Date): { orchestrator: string; source: string } {
  root = mkdtempSync(join(tmpdir(), "rein-dist-freshness-"));
  writeFileSync(join(root, "pnpm-workspace.yaml"), "packages: [packages/*, apps/*]\n");
  const orchestrator = join(root, "apps", "orchestrator");
  const contracts = join(root, "packages", "contracts");
  for (const dir of [orchestrator, contracts]) {
    mkdirSync(join(dir, "src"), { recursive: true });
    mkdirSync(join(dir, "dist", "cli"), { recursive: true });
    writeFileSync(join(dir, "src", "index.ts"), "export {};\n");
    writeFileSync(join(dir, "dist", "index.js"), "export {};\n");
    utimesSync(join(dir, "src", "index.ts"), writtenAt, writtenAt);
    utimesSync(join(dir, "dist", "index.js"), builtAt, builtAt);
  }
  writeFileSync(join(orchestrator, "dist", "cli", "main.js"), "export const main = () => 0;\n");
  return { orchestrator, source: join(contracts, "src", "index.ts") };
}

describe("the CLI's choice between dist/ and the TypeScript sources", () => {
  it("runs dist/ when every package was built after its sources were written", () => {
    const { orchestrator } = checkout(new Date(Date.now() - 60_000), new Date());
    expect(compiledIsCurrent(orchestrator)).toBe(true);
  });

  it("runs the sources when a package's source is newer than its build", () => {
    const { orchestrator } = checkout(new Date(), new Date(Date.now() - 60_000));
    expect(compiledIsCurrent(orchestrator)).toBe(false);
  });

  // A checkout, a stash or an editor rewrites a file unchanged: turbo's build then replays the package
  // from its cache without touching dist/, and the CLI ran the sources at every start, `npm run build` or not.
  it("runs dist/ again once a build marks it current, after a source was rewritten with the same content", () => {
    const { orchestrator, source } = checkout(new Date(Date.now() - 60_000), new Date(Date.now() - 30_000));
    writeFileSync(source, "export {};\n");
    expect(compiledIsCurrent(orchestrator)).toBe(false);

    markDistCurrent(orchestrator);

    expect(compiledIsCurrent(orchestrator)).toBe(true);
  });

  it("does not mark a package whose build left no dist/", () => {
    const { orchestrator, source } = checkout(new Date(Date.now() - 60_000), new Date(Date.now() - 30_000));
    rmSync(join(source, "..", "..", "dist"), { recursive: true });

    markDistCurrent(orchestrator);

    expect(compiledIsCurrent(orchestrator)).toBe(false);
  });
});
