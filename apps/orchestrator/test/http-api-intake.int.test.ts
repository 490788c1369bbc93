import { describe, expect, it } from "vitest";
import { jobIds } from "@rein/runtime";
import { intakeEvents } from "@rein/controller";
import { bugfixExample, type Harness, startExampleHarness } from "./support/harness.ts";
import { closeNow, listenApi } from "./support/api-server.ts";

const token = "intake-token-0123456789abcdef";

// Issue 32: `rein serve` holds the packet key, so POST /runs takes the run in itself instead of through the control queue.
describe("POST /runs on a process that holds the packet key", { timeout: 60_000 }, () => {
  const postGoal = async (harness: Harness, intake: boolean): Promise<string> => {
    const { example } = await bugfixExample();
    const api = await listenApi({
      runtime: harness.runtime,
      approvals: harness.tooling.approvals,
      approvalSigner: harness.desk.signer,
      knownTools: harness.tooling.registry.names(),
      token,
      intake: intake ? intakeEvents(harness.runtime, harness.packetPrivateKey) : undefined,
    });
    try {
      const response = await fetch(`${api.base}/runs`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ ...example.goal, workspace: "project" }),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { runId: string }).runId;
    } finally {
      await closeNow(api.server);
    }
  };

  it("applies goal.submitted in place: the run plans without a control job, and ends as through the queue", async () => {
    const harness = await startExampleHarness("bugfix", { seeds: true });
    try {
      const { runtime } = harness;
      const inPlace = await postGoal(harness, true);
      const queued = await postGoal(harness, false);
      const [viaApi, viaQueue] = await Promise.all([harness.waitFor(inPlace), harness.waitFor(queued)]);
      expect(viaApi.status, viaApi.stopReason).toBe("done");
      expect(viaQueue.status, viaQueue.stopReason).toBe("done");
      expect(await runtime.queues.control.getJob(jobIds.control(`submitted-${inPlace}`))).toBeUndefined();
      expect(await runtime.queues.control.getJob(jobIds.control(`submitted-${queued}`))).toBeDefined();
      expect(viaApi.appliedEvents[0]).toBe(`submitted-${inPlace}`);
      // The trace reads the same whichever way the goal was taken in.
      const kinds = async (runId: string) => (await runtime.trace.read(runId)).map((event) => event.kind);
      expect(await kinds(inPlace)).toEqual(await kinds(queued));
    } finally {
      await harness.close();
    }
  });
});
