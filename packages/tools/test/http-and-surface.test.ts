import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyRule } from "@rein/contracts";
import { builtinTools } from "../src/builtin/builtin-tools.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

let server: Server;
let base: string;
let local: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/missing") {
      response.writeHead(404, { "content-type": "text/plain" }).end("no such page");
      return;
    }
    if (request.url === "/redirect") {
      response.writeHead(302, { location: "https://elsewhere.example/" }).end();
      return;
    }
    response
      .writeHead(200, { "content-type": "text/plain" })
      .end(`hello ${request.method} ${request.headers.authorization ?? "anonymous"}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  local = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = `http://${local}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const temp = workspacePerTest();

const allowLocal = PolicyRule.parse({ id: "local-http", tool: "http_request", hosts: ["127.0.0.1"], decision: "allow" });
const hostsOption = () => ({ hosts: [local] });

describe("http_request", () => {
  it("fetches from an allowed host as external data and does not follow redirects", async () => {
    const tools = builtinTools(hostsOption());
    const { run } = harness({
      tools,
      surface: [{ name: "http_request", scope: { hosts: ["127.0.0.1"] } }],
      workspace: temp.workspace,
      policy: [allowLocal],
    });
    const ok = await run(call("http_request", { url: `${base}/hello` }));
    expect(ok.observation.status).toBe("ok");
    expect(ok.observation.content).toContain("hello GET anonymous");
    expect(ok.observation.provenance.trust).toBe("external");
    const redirected = await run(call("http_request", { url: `${base}/redirect` }));
    expect(redirected.observation.content).toContain("HTTP 302 → https://elsewhere.example/ (not followed)");
    const post = await run(call("http_request", { url: `${base}/x`, method: "POST" }));
    expect(post.observation.status).toBe("invalid_input");
    expect(post.observation.content).toContain('field "method": expected one of "GET", "HEAD"');
  });

  it("records the HTTP status of the answer in the trace, so a 404 shows as one and not as a call that went fine", async () => {
    const { run, trace } = harness({
      tools: builtinTools(hostsOption()),
      surface: [{ name: "http_request", scope: { hosts: ["127.0.0.1"] } }],
      workspace: temp.workspace,
      policy: [allowLocal],
    });
    const missing = await run(call("http_request", { url: `${base}/missing` }));
    expect(missing.observation.content).toContain("HTTP 404");
    expect(trace.ofKind("tool.executed").map((event) => event.payload.httpStatus)).toEqual([404]);
  });

  it("asks for approval by default, as an external effect", async () => {
    const { run } = harness({
      tools: builtinTools(hostsOption()),
      surface: [{ name: "http_request", scope: {} }],
      workspace: temp.workspace,
    });
    const outcome = await run(call("http_request", { url: `${base}/hello` }));
    expect(outcome.observation.status).toBe("denied");
    expect(outcome.observation.content).toContain("needs a person's approval");
  });
});

describe("schemasFor", () => {
  it("lists exactly the registered tools on the surface and states their limits", () => {
    const { executor } = harness({ tools: builtinTools(), surface: [], workspace: temp.workspace });
    const schemas = executor.schemasFor([
      { name: "write_file", scope: { paths: ["src/**"] } },
      { name: "read_file", scope: {} },
      { name: "not_registered", scope: {} },
    ]);
    expect(schemas.map((schema) => schema.name)).toEqual(["read_file", "write_file"]);
    expect(schemas[1]?.description).toContain("Allowed in this step — paths: src/**.");
    expect(schemas[0]?.inputSchema).toMatchObject({ type: "object", required: ["path"] });
  });

  it("refuses a write outside the grant's paths", async () => {
    const { run, trace } = harness({
      tools: builtinTools(),
      surface: [{ name: "write_file", scope: { paths: ["src/**"] } }],
      workspace: temp.workspace,
    });
    const outcome = await run(call("write_file", { path: "README.md", content: "x" }));
    expect(outcome.observation.status).toBe("refused");
    expect(outcome.observation.content).toContain("may not touch paths README.md (allowed: src/**)");
    expect(trace.kinds()).not.toContain("tool.executed");
    expect((await run(call("write_file", { path: "src/ok.ts", content: "x" }))).observation.status).toBe("ok");
  });
});
