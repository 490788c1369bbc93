import { describe, expect, it } from "vitest";
import { cliEnv, prefixesCleanedAfterAll, rein } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

// What a goal asks for is said at submit by a flag (issue 28 case 8); a few CLI starts, sized generously, not a timing assertion.
describe("rein submit --kind", { timeout: 240_000 }, () => {
  it("records what the goal asks for on the run's goal, and refuses a kind it does not know, naming the ones it does", async () => {
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX as string);
    const submitted = await rein(["submit", "Write a haiku about Redis", "--kind", "text", "--tools", "list_files"], env);
    expect(submitted.code).toBe(0);
    const runId = submitted.stdout.trim();
    const status = await rein(["status", runId, "--json"], env);
    expect(JSON.parse(status.stdout).goal.kind).toBe("text");

    const unknown = await rein(["submit", "Write a haiku about Redis", "--kind", "poem", "--tools", "list_files"], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/question.*change.*text/);
  });
});
