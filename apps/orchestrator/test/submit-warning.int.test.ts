import { describe, expect, it } from "vitest";
import { cliEnv, prefixesCleanedAfterAll, rein, startRein } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

// Several CLI starts on a loaded machine; sized generously, not a timing assertion.
describe("rein submit and the controller that would take its run", { timeout: 240_000 }, () => {
  it("warns on stderr when no controller serves the prefix, and not once one does; the run id is on stdout either way", async () => {
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX as string);
    const alone = await rein(["submit", "list the files", "--tools", "list_files"], env);
    expect(alone.code).toBe(0);
    expect(alone.stdout.trim()).toMatch(/^run_[a-z0-9]+$/);
    expect(alone.stderr).toContain(`rein submit: warning: no controller has been seen on prefix ${env.REIN_PREFIX} in the last 30 s`);
    expect(alone.stderr).toContain("rein serve");

    const serve = startRein(["serve"], env);
    await new Promise<void>((resolve) => {
      serve.child.stderr?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("running against")) resolve();
      });
    });
    try {
      const served = await rein(["submit", "list the files", "--tools", "list_files"], env);
      expect(served.code).toBe(0);
      expect(served.stdout.trim()).toMatch(/^run_[a-z0-9]+$/);
      expect(served.stderr).not.toContain("no controller");
    } finally {
      serve.child.kill("SIGTERM");
      await serve.done;
    }
  });
});
