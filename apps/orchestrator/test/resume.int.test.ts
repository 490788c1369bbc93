import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFile, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTerminal } from "@rein/contracts/run";
import { ApprovalSigner, ApprovalVerifier, exportPacketKeys, generateKeyPair, generatePacketKeys } from "@rein/signing";
import { type ModelScriptInput, ScriptedProvider } from "@rein/models";
import { ApprovalStore, createRuntime, type ReinRuntime } from "@rein/runtime";
import { defineTool, Workspace, z } from "@rein/tools";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { decideApproval } from "../src/approvals/decide-approval.ts";
import { submitGoal, type RunningRoles, startRoles, buildTooling, type Tooling } from "@rein/controller";
import { countingSwitchTool } from "./support/switch-tool.ts";

const ENTRY = fileURLToPath(new URL("./resume/controller-entry.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Each execution appends a line to the run's workspace: the ground truth of what ran, and how often. */
const mark = defineTool({
  name: "mark",
  description: "Append a mark to marks.log. Writes.",
  effect: "write",
  input: z.object({ n: z.number().int() }),
  run: async (args, context) => {
    await appendFile(await context.workspace.resolve("marks.log"), `${context.stepId} mark ${args.n}\n`);
    return `marked ${args.n}`;
  },
});
const allowMarks = { id: "resume:allow-mark", tool: "mark", decision: "allow" as const, reason: "marks are what these runs are for" };
const flipSwitch = countingSwitchTool();

const markStep = (n: number) => ({
  current_step: {
    title: `Write mark ${n}`,
    objective: `Append mark ${n} to marks.log with the mark tool.`,
    tools: ["mark"],
    output_contract: { description: "one line", format: "text" },
  },
  done: false,
});
const script: ModelScriptInput = {
  planner: [
    ...[1, 2, 3].map((n) => ({
      match: [`Completed steps: ${n === 1 ? "none" : n - 1}`, "Goal: Record three marks"],
      turns: [{ output: markStep(n) }],
    })),
    {
      match: ["Completed steps: 3", "Goal: Record three marks"],
      turns: [
        {
          output: {
            current_step: null,
            done: true,
            answer: { answer: "three marks", claims: [{ text: "mark 3 was recorded", evidence: ["{{evidence:mark}}"] }], gaps: [] },
          },
        },
      ],
    },
    {
      match: ["Completed steps: none", "Goal: Flip the switch"],
      turns: [
        {
          output: {
            current_step: { title: "Flip the switch on", objective: "Turn the main switch on with flip_switch.", tools: ["flip_switch"] },
            done: false,
          },
        },
      ],
    },
    {
      match: ["Completed steps: 1", "Goal: Flip the switch"],
      turns: [
        {
          output: {
            current_step: null,
            done: true,
            answer: { answer: "switched on", claims: [{ text: "the switch is on", evidence: ["{{evidence:flip_switch}}"] }], gaps: [] },
          },
        },
      ],
    },
  ],
  worker: [
    ...[1, 2, 3].map((n) => ({
      match: `Write mark ${n}`,
      turns: [{ toolCalls: [{ name: "mark", input: { n } }] }, { text: `mark ${n} written` }],
    })),
    { match: "Flip the switch on", turns: [{ toolCalls: [{ name: "flip_switch", input: { position: "on" } }] }, { text: "switched on" }] },
  ],
};

interface ControllerProcess {
  child: ChildProcess;
  ready: Promise<void>;
}

describe("durable resume: SIGKILL the controller mid-run", () => {
  let runtime: TestRuntime;
  let roleRuntime: ReinRuntime;
  let roles: RunningRoles;
  let tooling: Tooling;
  let controller: ControllerProcess | undefined;
  const keys = generatePacketKeys();
  const approvalKeys = generateKeyPair();

  const startController = (): ControllerProcess => {
    const child = spawn(process.execPath, ["--conditions=@rein/source", "--import", "tsx", ENTRY], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        REIN_REDIS_URL: runtime.config.redisUrl,
        REIN_PREFIX: runtime.config.prefix,
        REIN_WORKSPACE_ROOT: runtime.config.workspaceRoot,
        REIN_PACKET_PRIVATE_KEY: exportPacketKeys(keys).privateKeyPem,
        REIN_LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
        if (output.includes("ready\n")) resolve();
      });
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk;
      });
      child.once("exit", (code, signal) => reject(new Error(`controller exited (${code ?? signal}) before it was ready:\n${output}`)));
    });
    return { child, ready };
  };
  const kill = async (process: ControllerProcess) => {
    const exited = once(process.child, "exit");
    process.child.kill("SIGKILL");
    await exited;
  };

  /** Polls `condition` until it holds; the timeout only bounds a hung test, nothing asserts on timing. */
  const until = async (condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}: ${await describeRuns()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  /** What every run and queue looks like, for the message of a test that timed out. */
  let describeRuns = async () => "";
  beforeAll(async () => {
    // The deployment allows marks: a goal rule could only tighten its default ask for a write outside any path.
    runtime = await createTestRuntime({ policy: [allowMarks] });
    roleRuntime = createRuntime(runtime.config);
    tooling = await buildTooling(roleRuntime, [mark, flipSwitch.tool], new ApprovalVerifier(approvalKeys.publicKey));
    const provider = (name: string) => new ScriptedProvider(script, { name });
    roles = startRoles(roleRuntime, {
      roles: ["plan", "step", "evaluate"],
      packetPublicKey: keys.publicKey,
      executor: tooling.executor,
      providers: { planner: provider("planner"), worker: provider("worker"), judge: provider("judge") },
    });
  });
  afterAll(async () => {
    if (controller && controller.child.exitCode === null) await kill(controller);
    await roles.close();
    await roleRuntime.close();
    await runtime.cleanup();
  });

  it("every run ends as if nothing happened: no step lost or doubled, the approval survives, the dangerous action runs once", async () => {
    const markRuns: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      markRuns.push(
        (await submitGoal(runtime, { text: "Record three marks", tools: [{ name: "mark" }] }, { knownTools: tooling.registry.names() }))
          .runId,
      );
    }
    const { runId: switchRun } = await submitGoal(
      runtime,
      { text: "Flip the switch", tools: [{ name: "flip_switch" }] },
      { knownTools: tooling.registry.names() },
    );
    const allRuns = [...markRuns, switchRun];
    describeRuns = async () => {
      const lines: string[] = [];
      for (const runId of allRuns) {
        const state = await runtime.runs.require(runId);
        const events = await runtime.trace.read(runId);
        lines.push(
          `${runId} ${state.status} v${state.version} steps=${state.steps.map((step) => `${step.stepId}:${step.phase}`).join(",")} last=${events
            .slice(-3)
            .map((event) => event.kind)
            .join(",")}`,
        );
      }
      const jobCounts = await Promise.all(
        runtime.queues.all().map(async (queue) => `${queue.name} ${JSON.stringify(await queue.getJobCounts())}`),
      );
      return `\n${lines.join("\n")}\n${jobCounts.join("\n")}`;
    };
    const dispatched = async () => {
      let count = 0;
      for (const runId of allRuns) count += (await runtime.trace.read(runId)).filter((event) => event.kind === "step.dispatched").length;
      return count;
    };

    // Kill 1: as soon as steps are moving.
    controller = startController();
    await controller.ready;
    await until(async () => (await dispatched()) >= 3, "3 steps were dispatched");
    await kill(controller);

    // Kill 2: once the switch run waits for its approval and more steps moved.
    controller = startController();
    await controller.ready;
    await until(
      async () => (await runtime.runs.require(switchRun)).status === "waiting_approval" && (await dispatched()) >= 8,
      "the switch run waits and 8 steps were dispatched",
    );
    await kill(controller);

    const approvals = new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: runtime.config.approvals.ttlSeconds });
    const [approvalId] = (await runtime.runs.require(switchRun)).pendingApprovals;
    expect((await approvals.get(approvalId as string))?.status).toBe("pending");

    // Kill 3: the approval is decided while no controller runs; one starts, takes the event, and dies at once.
    controller = startController();
    await controller.ready;
    expect((await runtime.runs.require(switchRun)).status).toBe("waiting_approval");
    expect((await approvals.get(approvalId as string))?.status).toBe("pending");
    await decideApproval(runtime, { store: approvals, signer: new ApprovalSigner(approvalKeys.privateKey) }, approvalId as string, {
      decision: "approved",
      approver: "test",
    });
    await until(
      async () => (await runtime.trace.read(switchRun)).some((event) => event.kind === "step.resumed"),
      "the switch step resumed",
    );
    await kill(controller);

    controller = startController();
    await controller.ready;
    await until(async () => {
      for (const runId of allRuns) if (!isTerminal((await runtime.runs.require(runId)).status)) return false;
      return true;
    }, "every run ended");

    for (const runId of markRuns) {
      const state = await runtime.runs.require(runId);
      expect(state.status, state.stopReason).toBe("done");
      expect(state.steps.map((step) => `${step.stepId}:${step.attempt}:${step.phase}`)).toEqual([
        "s1:1:completed",
        "s2:1:completed",
        "s3:1:completed",
      ]);
      expect(state.spent.steps).toBe(3);
      const workspace = await Workspace.forRun(runtime.config.workspaceRoot, runId);
      expect(await readFile(await workspace.resolve("marks.log"), "utf8")).toBe("s1 mark 1\ns2 mark 2\ns3 mark 3\n");
    }
    const switchState = await runtime.runs.require(switchRun);
    expect(switchState.status).toBe("done");
    expect(flipSwitch.flips()).toBe(1);

    // A controller that starts over a finished deployment re-runs nothing.
    await kill(controller);
    controller = startController();
    await controller.ready;
    await runtime.queues.sendControl({
      type: "approval.decided",
      eventId: `approval-${approvalId}-again`,
      runId: switchRun,
      approvalId: approvalId as string,
      decision: "approved",
    });
    await until(
      async () =>
        (await runtime.trace.read(switchRun)).some(
          (event) => event.kind === "event.ignored" && event.payload.eventId === `approval-${approvalId}-again`,
        ),
      "the stray approval was ignored",
    );
    expect(flipSwitch.flips()).toBe(1);
  }, 180_000);
});
