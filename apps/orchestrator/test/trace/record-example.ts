import { afterAll, beforeAll } from "vitest";
import { fixtureAround, liveView } from "@rein/contracts/testing";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { scriptedOverrides } from "../../src/cli/run-command.ts";
import { type LoadedExample, loadExample } from "../../src/examples/load-example.ts";
import { runPrivately } from "../../src/replay/in-process-run.ts";
import { loadBundle, type TraceBundle } from "../../src/trace/trace-bundle.ts";

export interface Recorded {
  runtime: TestRuntime;
  example: LoadedExample;
  bundle: TraceBundle;
}

/** Runs an example end to end with its scripted models on a test runtime and returns its recorded bundle. */
export async function recordExample(name: string): Promise<Recorded> {
  const example = await loadExample(name);
  const runtime = await createTestRuntime(scriptedOverrides(example));
  try {
    const { state } = await runPrivately(runtime, {
      goal: example.goal,
      workspaceDir: example.seedDir,
      tools: example.tools,
      decideApproval: () => ({ decision: "approved", approver: "test:approver" }),
    });
    return { runtime, example, bundle: await loadBundle(runtime, state.runId) };
  } catch (error) {
    await runtime.cleanup();
    throw error;
  }
}

/**
 * Example `name` recorded once (recordExample) before the tests of the
 * `describe` or file that calls this, and its runtime deleted after them.
 */
export function exampleRecordedOnce(name: string): Recorded {
  const current = fixtureAround(
    beforeAll,
    afterAll,
    `the recording of examples/${name}`,
    () => recordExample(name),
    (recorded) => recorded.runtime.cleanup(),
  );
  return liveView(current, ["runtime", "example", "bundle"]);
}
