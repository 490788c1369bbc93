import { describe, expect, it } from "vitest";
import { TraceEvent } from "@rein/contracts/run";
import { cliEnv, prefixesCleanedAfterAll, rein } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

describe("rein trace on a run whose first test run fails (examples/bugfix)", () => {
  it("shows the failing command as `exit 1` in the timeline, and --call prints that call's input, output and what the model was shown", async () => {
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX as string);
    const run = await rein(["run", "--example", "bugfix"], env);
    expect(run.code).toBe(0);
    const runId = /run (run_[a-z0-9]+) submitted/.exec(run.stdout)?.[1] as string;
    const events = (await rein(["trace", runId, "--json"], env)).stdout
      .trim()
      .split("\n")
      .map((line) => TraceEvent.parse(JSON.parse(line)));
    const failed = events.find((event) => event.kind === "tool.executed" && event.payload.exitCode === 1);
    const callId = String(failed?.payload.callId);
    expect(callId).toMatch(/^call_/);

    const timeline = await rein(["trace", runId], env);
    expect(timeline.stdout).toMatch(
      /run_command\(\{"command":"node","args":\["--test"\]\}\) \[allow by bugfix:allow-node-tests\] → exit 1 /,
    );
    expect(timeline.stdout).toMatch(/run_command\(\{"command":"node","args":\["--test"\]\}\) \[allow by bugfix:allow-node-tests\] → ok /);

    const call = await rein(["trace", runId, "--call", callId], env);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain(`call ${callId} in step s1 (#${String(failed?.payload.index)}): run_command → exit 1`);
    expect(call.stdout).toContain("decision: allow by bugfix:allow-node-tests");
    expect(call.stdout).toContain('"command": "node"');
    const [output, shown] = call.stdout.split(/^shown to the model/m);
    expect(output).toMatch(/^output:\n {2}exit code: 1\n/m);
    expect(output).toContain("not ok 1 - add sums two numbers");
    expect(shown).toContain("not ok 1 - add sums two numbers");

    const unknown = await rein(["trace", runId, "--call", "call_nope"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`run ${runId} has no call call_nope; its calls: `);
    expect(unknown.stderr).toContain(callId);
  }, 120_000);
});
