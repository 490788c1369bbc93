import { afterAll, describe, expect, it } from "vitest";
import { PolicyRule, ReinError } from "@rein/contracts";
import { connectMcpServer, type McpConnection } from "../src/mcp-tools.ts";
import { SecretBindings } from "@rein/guard";
import { call, harness } from "@rein/tools/testing";
import { startRemoteServer } from "./fixtures/remote-mcp-server.ts";
import { remoteServerPerFile } from "./mcp-per-file.ts";

const TOKEN = "mcp-bearer-CANARY-8d3f2a";
const secrets = (value: string) =>
  SecretBindings.fromEnv([{ env: "REMOTE_MCP_TOKEN", tools: ["mcp:remote"], hosts: [] }], { REMOTE_MCP_TOKEN: value });

const fixture = remoteServerPerFile(() => startRemoteServer(TOKEN));

describe("a remote MCP server over Streamable HTTP", { timeout: 30_000 }, () => {
  let connection: McpConnection;
  afterAll(async () => {
    await connection?.close();
  });

  it("is used with the bearer token from a bound secret, and its host is in every call's scope for the policy", async () => {
    connection = await connectMcpServer(
      { name: "remote", url: fixture.remote.url, auth: { bearer: "REMOTE_MCP_TOKEN" }, trustAnnotations: true },
      { secrets: secrets(TOKEN) },
    );
    const shout = connection.tools.find((tool) => tool.name === "remote__shout");
    expect(shout).toBeDefined();
    const host = `127.0.0.1:${new URL(fixture.remote.url).port}`;
    const allowHost = PolicyRule.parse({ id: "remote-mcp", tool: "remote__shout", hosts: [host], decision: "allow" });
    const granted = harness({
      tools: connection.tools,
      surface: [{ name: "remote__shout", scope: { hosts: [host] } }],
      workspace: fixture.workspace,
      policy: [allowHost],
    });
    const outcome = await granted.run(call("remote__shout", { text: "hello" }));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("HELLO");
    expect(fixture.remote.authorizations.every((header) => header === `Bearer ${TOKEN}`)).toBe(true);
    expect(JSON.stringify(granted.trace.events)).not.toContain(TOKEN);
  });

  it("is refused by the network policy when the goal does not grant its host", async () => {
    const ungranted = harness({
      tools: connection.tools,
      surface: [{ name: "remote__shout", scope: { hosts: ["example.com:443"] } }],
      workspace: fixture.workspace,
    });
    const outcome = await ungranted.run(call("remote__shout", { text: "hello" }));
    expect(outcome.observation.status).not.toBe("ok");
    expect(outcome.observation.content).toMatch(/127\.0\.0\.1/);
  });

  it("with a wrong token fails to start with a clear error that does not carry the token", async () => {
    const wrong = "wrong-CANARY-token-55";
    const failed = await connectMcpServer(
      { name: "remote", url: fixture.remote.url, auth: { bearer: "REMOTE_MCP_TOKEN" } },
      { secrets: secrets(wrong) },
    ).catch((error: unknown) => error);
    expect(ReinError.isInstance(failed)).toBe(true);
    expect((failed as Error).message).toContain(`MCP server remote at ${fixture.remote.url} refused Rein's credentials (HTTP 401`);
    expect(JSON.stringify({ message: (failed as Error).message, details: (failed as ReinError).details })).not.toContain(wrong);
  });

  it("without its secret bound is a config error that names the secret, not a value", async () => {
    const unbound = connectMcpServer(
      { name: "remote", url: fixture.remote.url, auth: { bearer: "REMOTE_MCP_TOKEN" } },
      { secrets: SecretBindings.none() },
    );
    await expect(unbound).rejects.toThrow(/needs secret REMOTE_MCP_TOKEN/);
  });

  it("is configured with a command or a url, never both", async () => {
    await expect(connectMcpServer({ name: "both", url: fixture.remote.url, command: "node" })).rejects.toThrow(/exactly one/);
  });
});
