import { afterAll, describe, expect, it } from "vitest";
import { PolicyRule, ReinError } from "@rein/contracts";
import { connectMcpServer, type McpConnection } from "../src/mcp-tools.ts";
import { SecretBindings } from "@rein/guard";
import { call, harness } from "@rein/tools/testing";
import { startOAuthRemoteServer } from "./fixtures/oauth-mcp-server.ts";
import { remoteServerPerFile } from "./mcp-per-file.ts";

const CLIENT = { id: "rein-worker", secret: "client-secret-CANARY-71c2" };
const secrets = (value: string) =>
  SecretBindings.fromEnv([{ env: "DOCS_CLIENT_SECRET", tools: ["mcp:docs"], hosts: [] }], { DOCS_CLIENT_SECRET: value });

const fixture = remoteServerPerFile(() => startOAuthRemoteServer(CLIENT));

const serverConfig = () => ({
  name: "docs",
  url: fixture.remote.url,
  auth: { oauth: { tokenUrl: fixture.remote.tokenUrl, clientId: CLIENT.id, clientSecret: "DOCS_CLIENT_SECRET" } },
  trustAnnotations: true,
});

function shout(connection: McpConnection) {
  const host = `127.0.0.1:${new URL(fixture.remote.url).port}`;
  const policy = [PolicyRule.parse({ id: "docs-mcp", tool: "docs__shout", hosts: [host], decision: "allow" })];
  return harness({
    tools: connection.tools,
    surface: [{ name: "docs__shout", scope: { hosts: [host] } }],
    workspace: fixture.workspace,
    policy,
  });
}

describe("a remote MCP server behind OAuth client credentials", { timeout: 60_000 }, () => {
  let connection: McpConnection;
  afterAll(async () => {
    await connection?.close();
  });

  it("gets a token from the token endpoint with the client's id and secret, and sends it on every request", async () => {
    connection = await connectMcpServer(serverConfig(), { secrets: secrets(CLIENT.secret), pingIntervalMs: 100 });
    const { run, trace } = shout(connection);
    const outcome = await run(call("docs__shout", { text: "hello" }));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("HELLO");
    expect(fixture.remote.tokenRequests).toEqual([{ grantType: "client_credentials", clientId: CLIENT.id, authorized: true }]);
    expect(new Set(fixture.remote.authorizations).size).toBe(1);
    expect(fixture.remote.authorizations[0]).toMatch(/^Bearer access-1-/);
    const token = (fixture.remote.authorizations[0] ?? "").replace("Bearer ", "");
    expect(JSON.stringify(trace.events)).not.toContain(token);
    expect(JSON.stringify(trace.events)).not.toContain(CLIENT.secret);
  });

  it("renews the token once when the server refuses it, and the call goes through", async () => {
    fixture.remote.revokeTokens();
    const { run } = shout(connection);
    const outcome = await run(call("docs__shout", { text: "again" }));
    expect(outcome.observation.status).toBe("ok");
    expect(fixture.remote.tokenRequests.length).toBe(2);
    expect(fixture.remote.authorizations.at(-1)).toMatch(/^Bearer access-2-/);
  });

  it("resumes its session after the connection dropped: same mcp-session-id, no second initialize", async () => {
    const sessionBefore = fixture.remote.sessionIdsSeen.findLast((id) => id !== "");
    const restartsBefore = connection.status().restarts;
    await fixture.remote.stopListening();
    // Health pings fail while the server is away, so the supervisor drops the session and reconnects.
    await expect
      .poll(() => connection.status().restarts > restartsBefore || connection.status().state !== "running", { timeout: 15_000 })
      .toBe(true);
    await fixture.remote.listenAgain();
    const { run } = shout(connection);
    await expect
      .poll(async () => (await run(call("docs__shout", { text: "back" }))).observation.status, { timeout: 30_000, interval: 300 })
      .toBe("ok");
    expect(fixture.remote.initializes()).toBe(1);
    expect(fixture.remote.sessionIdsSeen.at(-1)).toBe(sessionBefore);
  });

  it("starts a new session when the server no longer knows the old one", async () => {
    const sessionBefore = fixture.remote.sessionIdsSeen.findLast((id) => id !== "");
    await fixture.remote.forgetSessions();
    const { run } = shout(connection);
    await expect
      .poll(async () => (await run(call("docs__shout", { text: "anew" }))).observation.status, { timeout: 30_000, interval: 300 })
      .toBe("ok");
    expect(fixture.remote.initializes()).toBe(2);
    expect(fixture.remote.sessionIdsSeen.at(-1)).not.toBe(sessionBefore);
  });

  it("with a wrong client secret fails to start naming the token endpoint and client, never the secret", async () => {
    const wrong = "wrong-secret-CANARY-0b9e";
    const failed = await connectMcpServer(serverConfig(), { secrets: secrets(wrong) }).catch((error: unknown) => error);
    expect(ReinError.isInstance(failed)).toBe(true);
    const error = failed as ReinError;
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(`could not get an OAuth token from ${fixture.remote.tokenUrl} as client ${CLIENT.id}`);
    expect(error.message).toContain("DOCS_CLIENT_SECRET");
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(wrong);
  });
});
