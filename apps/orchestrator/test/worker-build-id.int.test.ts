import { describe, expect, it } from "vitest";
import { cliEnv, prefixesCleanedAfterAll, rein, startRein } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

// A CLI process that loads every package through tsx.
describe("rein worker --build-id", { timeout: 60_000 }, () => {
  it("announces the build it runs as, over REIN_BUILD_ID", async () => {
    const env = cliEnv({ REIN_BUILD_ID: "2026.12.3" });
    prefixes.push(env.REIN_PREFIX as string);
    const started = startRein(["worker", "--role", "plan", "--build-id", "2026.12.4"], env);
    let printed = "";
    await new Promise<void>((resolve, reject) => {
      started.child.stderr?.on("data", (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes("running against")) resolve();
      });
      started.done.then((result) => reject(new Error(`rein worker exited ${result.code}:\n${result.stderr}`)));
    });
    started.child.kill("SIGTERM");
    expect((await started.done).code).toBe(0);
    expect(printed).toMatch(/plan running against .*, build 2026\.12\.4\); SIGTERM to stop/);
  });

  it("refuses a build id that cannot name a queue, saying what is expected", async () => {
    const result = await rein(["worker", "--role", "step", "--build-id", "v1:blue"], cliEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--build-id "v1:blue": expected 1 to 64 letters, digits, '\.', '_' or '-'/);
  });
});
