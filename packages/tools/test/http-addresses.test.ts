import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PolicyRule } from "@rein/contracts";
import { blockedAddressKind } from "../src/builtin/address-ranges.ts";
import { builtinTools } from "../src/builtin/builtin-tools.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

let server: Server;
let port: number;
const seen: IncomingHttpHeaders[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { "content-type": "text/plain" }).end("internal admin page");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
});

const temp = workspacePerTest();
const allowHttp = PolicyRule.parse({ id: "ops:http", tool: "http_request", decision: "allow" });

/** A resolver for names that exist only in the test: each name answers from its own list, one answer per call (the last repeats). */
function resolver(answers: Record<string, string[][]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const list = answers[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    const addresses = list[Math.min(calls.filter((name) => name === hostname).length - 1, list.length - 1)] as string[];
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { lookup, calls };
}

function setup(hosts: string[], lookup?: ReturnType<typeof resolver>["lookup"]) {
  return harness({
    tools: builtinTools({ hosts, lookup }),
    surface: [{ name: "http_request", scope: {} }],
    workspace: temp.workspace,
    policy: [allowHttp],
  });
}

describe("http_request checks the addresses a name resolves to", () => {
  it("refuses an allowlisted name that resolves to a loopback address, and sends nothing", async () => {
    const { lookup } = resolver({ "internal.test": [["127.0.0.1"]] });
    const { run } = setup([`internal.test:${port}`], lookup);
    const outcome = await run(call("http_request", { url: `http://internal.test:${port}/admin` }));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain("internal.test resolves to 127.0.0.1, a loopback address");
    expect(outcome.observation.content).toContain(`names it, e.g. "127.0.0.1:${port}"`);
    expect(seen).toHaveLength(0);
  });

  it("refuses when any one of the addresses is private, metadata or link-local", async () => {
    const { lookup } = resolver({
      "mixed.test": [["93.184.216.34", "10.0.0.7"]],
      "meta.test": [["169.254.169.254"]],
      "v6.test": [["fd00:ec2::254"]],
    });
    const { run } = setup([`mixed.test:${port}`, "meta.test:80", "v6.test:80"], lookup);
    expect((await run(call("http_request", { url: `http://mixed.test:${port}/` }))).observation.content).toContain(
      "10.0.0.7, a private address",
    );
    expect((await run(call("http_request", { url: "http://meta.test/latest/meta-data/" }))).observation.content).toContain(
      "a cloud metadata address",
    );
    expect((await run(call("http_request", { url: "http://v6.test/" }))).observation.content).toContain("a cloud metadata address");
    expect(seen).toHaveLength(0);
  });

  it("connects to an address the allowlist names, by address, and to the very address it checked", async () => {
    // A rebinding resolver: a second lookup would send the request to 10.9.9.9.
    const { lookup, calls } = resolver({ "svc.test": [["127.0.0.1"], ["10.9.9.9"]] });
    const { run } = setup([`svc.test:${port}`, `127.0.0.1:${port}`], lookup);
    const outcome = await run(call("http_request", { url: `http://svc.test:${port}/status` }));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("internal admin page");
    expect(calls).toEqual(["svc.test"]);
    expect(seen.map((headers) => headers.host)).toEqual([`svc.test:${port}`]);
    const literal = await run(call("http_request", { url: `http://127.0.0.1:${port}/` }));
    expect(literal.observation.status).toBe("ok");
  });

  it("over https, names the URL's host to the server (SNI) while connecting to the checked address", async () => {
    const names: string[] = [];
    // No certificate: the handshake stops at the name the client sent, which is all this test needs.
    const tls = createTlsServer({
      SNICallback: (name, done) => {
        names.push(name);
        done(new Error("no certificate here"));
      },
    });
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    const tlsPort = (tls.address() as AddressInfo).port;
    try {
      const { lookup } = resolver({ "secure.test": [["127.0.0.1"]] });
      const { run } = setup([`secure.test:${tlsPort}`, `127.0.0.1:${tlsPort}`], lookup);
      const outcome = await run(call("http_request", { url: `https://secure.test:${tlsPort}/` }));
      expect(outcome.observation.status).toBe("error");
      expect(names).toEqual(["secure.test"]);
    } finally {
      await new Promise<void>((resolve) => tls.close(() => resolve()));
    }
  });

  it("does not send a Host header the model wrote: the host is the URL's", async () => {
    const { run } = setup([`127.0.0.1:${port}`]);
    const outcome = await run(call("http_request", { url: `http://127.0.0.1:${port}/`, headers: { Host: "admin.internal" } }));
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).toContain("Host");
    expect(seen.map((headers) => headers.host)).not.toContain("admin.internal");
    const framing = await run(call("http_request", { url: `http://127.0.0.1:${port}/`, headers: { "Transfer-Encoding": "chunked" } }));
    expect(framing.observation.status).toBe("invalid_input");
    expect(seen).toHaveLength(0);
  });
});

describe("address ranges", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["10.1.2.3", "a private address"],
    ["172.16.0.1", "a private address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.1", "a private address"],
    ["100.64.0.1", "a shared (CGNAT) address"],
    ["169.254.169.254", "a cloud metadata address"],
    ["169.254.10.1", "a link-local address"],
    ["0.0.0.0", "an unspecified (this-network) address"],
    ["224.0.0.1", "a multicast address"],
    ["255.255.255.255", "a reserved or broadcast address"],
    ["::1", "a loopback address"],
    ["::", "an unspecified address"],
    ["fe80::1%eth0", "a link-local address"],
    ["fc00::1", "a unique-local (private) address"],
    ["fd00:ec2::254", "a cloud metadata address"],
    ["::ffff:127.0.0.1", "a loopback address (IPv4-mapped)"],
    ["::ffff:a00:1", "a private address (IPv4-mapped)"],
    ["64:ff9b::a9fe:a9fe", "a cloud metadata address (NAT64)"],
    ["2002:c0a8:0101::1", "a private address (6to4)"],
    ["localhost", "not an IP address"],
  ])("%s is %s", (address, kind) => {
    expect(blockedAddressKind(address)).toBe(kind);
  });

  it.each(["8.8.8.8", "172.32.0.1", "100.128.0.1", "93.184.216.34", "2606:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8"])(
    "%s is public",
    (address) => {
      expect(blockedAddressKind(address)).toBeUndefined();
    },
  );
});
