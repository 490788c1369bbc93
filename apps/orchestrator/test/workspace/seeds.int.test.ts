import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GoalInput } from "@rein/contracts";
import { ApprovalSigner, generateKeyPair } from "@rein/signing";
import { ApprovalStore } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitGoal } from "@rein/controller";
import { closeNow, listenApi } from "../support/api-server.ts";

/**
 * A goal from outside names a seed under the deployment's seedsRoot; it can
 * never make the server copy an arbitrary directory (its packet key
 * directory, say) into a run's workspace.
 */
const TOKEN = "seeds-test-token-0123456789";

describe("named seeds under seedsRoot", () => {
  let runtime: TestRuntime;
  let seedsRoot: string;
  let keysDir: string;
  let server: Server;
  let base: string;
  const tools = ["read_file", "list_files"];
  const goal = (extra: Record<string, unknown>): GoalInput =>
    ({ text: "Summarize the service", tools: [{ name: "read_file" }], ...extra }) as GoalInput;

  beforeAll(async () => {
    const outside = mkdtempSync(join(tmpdir(), "rein-seeds-"));
    seedsRoot = join(outside, "seeds");
    keysDir = join(outside, "keys");
    mkdirSync(join(seedsRoot, "billing"), { recursive: true });
    writeFileSync(join(seedsRoot, "billing", "README.md"), "billing service\n");
    mkdirSync(keysDir);
    writeFileSync(join(keysDir, "packet-private.pem"), "PRIVATE KEY\n");
    symlinkSync(keysDir, join(seedsRoot, "keys-link"));
    runtime = await createTestRuntime({ seedsRoot });
    ({ server, base } = await listenApi({
      runtime,
      approvals: new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: 60 }),
      approvalSigner: new ApprovalSigner(generateKeyPair().privateKey),
      knownTools: tools,
      token: TOKEN,
    }));
  });
  afterAll(async () => {
    await closeNow(server);
    rmSync(join(seedsRoot, ".."), { recursive: true, force: true });
    await runtime.cleanup();
  });

  const copiedKeys = () =>
    readdirSync(runtime.config.workspaceRoot, { recursive: true }).some((path) => String(path).endsWith("packet-private.pem"));

  it("starts the run's workspace from the named seed", async () => {
    const { runId, origin } = await submitGoal(runtime, goal({ workspace: "billing" }), { knownTools: tools });
    expect(origin?.kind).toBe("copy");
    expect(readFileSync(join(runtime.config.workspaceRoot, runId, "README.md"), "utf8")).toBe("billing service\n");
  });

  it.each([
    ["a path that climbs out", "../keys", /not a path: no leading \/, no \. or \.\. segments/],
    ["an absolute path", "/etc", /not a path/],
    ["a seed that is a symlink out of seedsRoot", "keys-link", /leads outside the deployment's seedsRoot/],
    ["a seed that does not exist", "payments", /no seed "payments"/],
  ])("refuses %s, and nothing is written", async (_what, name, message) => {
    const before = await runtime.runs.list(100);
    await expect(submitGoal(runtime, goal({ workspace: name }), { knownTools: tools })).rejects.toThrow(message);
    expect(await runtime.runs.list(100)).toEqual(before);
    expect(copiedKeys()).toBe(false);
  });

  it("refuses the old workspaceSeed over HTTP, saying what replaced it", async () => {
    const response = await fetch(`${base}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(goal({ workspaceSeed: keysDir })),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(
      /workspaceSeed is no longer accepted; expected goal\.workspace, the name of a seed/,
    );
    expect(copiedKeys()).toBe(false);
  });

  it("refuses a seed path over HTTP with 400", async () => {
    for (const workspace of ["../keys", keysDir, "keys-link"]) {
      const response = await fetch(`${base}/runs`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(goal({ workspace })),
      });
      expect(response.status, workspace).toBe(400);
    }
    expect(copiedKeys()).toBe(false);
  });

  it("refuses any seed when the deployment has no seedsRoot", async () => {
    const bare = await createTestRuntime();
    try {
      await expect(submitGoal(bare, goal({ workspace: "billing" }), { knownTools: tools })).rejects.toThrow(
        /this deployment has no seedsRoot/,
      );
      expect(existsSync(join(bare.config.workspaceRoot, ".origins"))).toBe(false);
    } finally {
      await bare.cleanup();
    }
  });
});
