import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Approval, RunState } from "@rein/contracts/run";
import { StepCheckpoint } from "@rein/contracts/calls";
import { ApprovalVerifier, decisionProblem, generateKeyPair } from "@rein/signing";

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;
const runStateV1 = fixture("run-state.v1.json");
const approvalV1 = fixture("approval.v1.json");
const approvalV2 = fixture("approval.v2.json");

describe("stored versions", () => {
  it("reads a RunState written by schema version 1 (a finished bugfix run)", () => {
    const state = RunState.parse(runStateV1);
    expect(state.status).toBe("done");
    expect(state.steps[0]?.spec.title).toBe("Fix add() so the tests pass");
    expect(state.evidence.length).toBeGreaterThan(0);
    // Fields added later have defaults, so a state stored before them still reads.
    expect(state.evidence.every((entry) => entry.status === "ok")).toBe(true);
    expect(state.proposal).toBeUndefined();
    expect(state.result?.claims).toEqual([]);
  });

  it("reads a step the run's end cancelled, with the usage its attempt had reported", () => {
    const [step] = runStateV1.steps as Record<string, unknown>[];
    const usage = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001 };
    const state = RunState.parse({ ...runStateV1, status: "cancelled", steps: [{ ...step, phase: "cancelled", attemptUsage: usage }] });
    expect(state.steps[0]).toMatchObject({ phase: "cancelled", attemptUsage: usage });
  });

  const invalid: Record<string, Record<string, unknown>> = {
    "a step's attempt usage with negative tokens": {
      ...runStateV1,
      steps: [
        {
          ...(runStateV1.steps as Record<string, unknown>[])[0],
          attemptUsage: { inputTokens: -5, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
        },
      ],
    },
    "a future schema version": { ...runStateV1, schemaVersion: 2 },
    "an unknown status": { ...runStateV1, status: "paused" },
    "a negative version": { ...runStateV1, version: -1 },
    "a step without its spec": { ...runStateV1, steps: [{ stepId: "s1", attempt: 1, phase: "completed" }] },
    "spend as a string": { ...runStateV1, spent: { steps: "1", tokens: 0, costUsd: 0 } },
  };
  for (const [label, value] of Object.entries(invalid)) {
    it(`rejects a stored RunState with ${label}`, () => {
      expect(RunState.safeParse(value).success).toBe(false);
    });
  }

  it("rejects a checkpoint whose pending call is not a content block", () => {
    const checkpoint = {
      schemaVersion: 1,
      runId: "run_1",
      stepId: "s1",
      attempt: 1,
      messages: [{ role: "user", content: [{ type: "text", text: "Task: x" }] }],
      observations: [],
      records: [],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
      turns: 1,
      savedAt: "2026-11-30T00:00:00.000Z",
    };
    expect(StepCheckpoint.safeParse(checkpoint).success).toBe(true);
    expect(StepCheckpoint.safeParse({ ...checkpoint, pending: { answered: [], calls: [{ type: "shell", cmd: "rm" }] } }).success).toBe(
      false,
    );
  });
});

describe("stored approvals", () => {
  const verifier = new ApprovalVerifier(generateKeyPair().publicKey);

  it("reads an approval written by schema version 1 (it lists), and never takes it for a signed decision", () => {
    const approval = Approval.parse(approvalV1);
    expect(approval).toMatchObject({ schemaVersion: 1, status: "approved", approver: "cli:oncall" });
    expect(approval.call).toBeUndefined();
    // Version 1 signed neither the note, the reason nor the call: whatever its signature, it is not honoured.
    expect(decisionProblem(verifier, approval)).toMatch(/older Rein \(schema version 1\)/);
  });

  it("reads an approval written by schema version 2, bound to the call that asked", () => {
    expect(Approval.parse(approvalV2)).toMatchObject({
      schemaVersion: 2,
      call: "1:toolu_01restart",
      status: "denied",
      reason: "peak hours",
    });
  });

  const invalid: Record<string, Record<string, unknown>> = {
    "version 2 without the call that asked": (({ call: _call, ...rest }) => rest)(approvalV2),
    "a future schema version": { ...approvalV2, schemaVersion: 3 },
    "an unknown status": { ...approvalV2, status: "overridden" },
    "an action hash that is not a sha256": { ...approvalV2, actionHash: "md5:abc" },
    "an empty call": { ...approvalV2, call: "" },
  };
  for (const [label, value] of Object.entries(invalid)) {
    it(`rejects a stored Approval with ${label}`, () => {
      expect(Approval.safeParse(value).success).toBe(false);
    });
  }
});
