import { describe, expect, it } from "vitest";
import { PolicyRule } from "@rein/contracts";
import { decidePermission } from "../../src/policy/permission-policy.ts";
import { hostMatches } from "../../src/policy/resource-match.ts";
import type { PolicyRequest } from "../../src/policy/rule-match.ts";

const rule = (input: Record<string, unknown>) => PolicyRule.parse(input);
const request = (overrides: Partial<PolicyRequest> = {}): PolicyRequest => ({
  tool: "write_file",
  effect: "write",
  scope: { paths: ["src/a.ts"] },
  argBytes: 100,
  ...overrides,
});
const none = { packet: [], config: [] };

describe("default decisions", () => {
  it("allows reads, allows workspace writes, asks for destructive and external", () => {
    expect(decidePermission(request({ tool: "read_file", effect: "read" }), none)).toMatchObject({
      decision: "allow",
      rule: "default:read",
    });
    expect(decidePermission(request(), none)).toMatchObject({ decision: "allow", rule: "default:write" });
    expect(decidePermission(request({ effect: "destructive" }), none)).toMatchObject({ decision: "ask", rule: "default:destructive" });
    expect(decidePermission(request({ effect: "external", scope: { hosts: ["a.com"] } }), none)).toMatchObject({
      decision: "ask",
      rule: "default:external",
    });
  });

  it("asks for a write that names no workspace path or also reaches a host", () => {
    expect(decidePermission(request({ scope: {} }), none).decision).toBe("ask");
    expect(decidePermission(request({ scope: { paths: ["a"], hosts: ["x.com"] } }), none).decision).toBe("ask");
  });
});

describe("rules", () => {
  it("allow needs every path to match, and at least one path", () => {
    const layers = {
      packet: [],
      config: [rule({ id: "src-only", tool: "*", decision: "allow", paths: ["src/**"], effect: ["destructive"] })],
    };
    expect(decidePermission(request({ effect: "destructive", scope: { paths: ["src/a", "src/b/c"] } }), layers).rule).toBe("src-only");
    expect(decidePermission(request({ effect: "destructive", scope: { paths: ["src/a", "docs/b"] } }), layers).rule).toBe(
      "default:destructive",
    );
    expect(decidePermission(request({ effect: "destructive", scope: {} }), layers).rule).toBe("default:destructive");
  });

  it("deny applies when any one resource matches", () => {
    const layers = { packet: [], config: [rule({ id: "no-env", decision: "deny", paths: ["**/.env"] })] };
    const decision = decidePermission(request({ scope: { paths: ["src/a.ts", "config/.env"] } }), layers);
    expect(decision).toMatchObject({ decision: "deny", rule: "no-env" });
  });

  it("matches tool globs, hosts, exact commands and argument size", () => {
    const config = [
      rule({ id: "big-args", decision: "deny", maxArgBytes: 1000 }),
      rule({ id: "node-ok", tool: "run_*", decision: "allow", commands: ["node"] }),
      rule({ id: "api", tool: "http_request", decision: "allow", hosts: ["*.example.com"] }),
    ];
    const layers = { packet: [], config };
    expect(decidePermission(request({ tool: "run_command", effect: "destructive", scope: { commands: ["node"] } }), layers).rule).toBe(
      "node-ok",
    );
    expect(
      decidePermission(request({ tool: "run_command", effect: "destructive", scope: { commands: ["/usr/bin/node"] } }), layers).rule,
    ).toBe("default:destructive");
    expect(
      decidePermission(request({ tool: "http_request", effect: "external", scope: { hosts: ["api.example.com"] } }), layers).rule,
    ).toBe("api");
    expect(decidePermission(request({ tool: "http_request", effect: "external", scope: { hosts: ["example.org"] } }), layers).rule).toBe(
      "default:external",
    );
    expect(decidePermission(request({ argBytes: 5000 }), layers)).toMatchObject({ decision: "deny", rule: "big-args" });
  });

  it("lets the strictest of deployment and goal win", () => {
    const packetAllow = [rule({ id: "goal-allow", decision: "allow", tool: "restart_service" })];
    const configAsk = [rule({ id: "ops-ask", decision: "ask", tool: "restart_service" })];
    const destructive = request({ tool: "restart_service", effect: "destructive", scope: { services: ["api"] } });
    expect(decidePermission(destructive, { packet: packetAllow, config: configAsk }).rule).toBe("ops-ask");
    const packetDeny = [rule({ id: "goal-deny", decision: "deny", tool: "*" })];
    expect(decidePermission(request(), { packet: packetDeny, config: [rule({ id: "all", decision: "allow" })] }).rule).toBe("goal-deny");
  });
});

describe("a goal only tightens", () => {
  const goalAllowAll = [rule({ id: "goal-allow-all", decision: "allow" })];

  it.each([
    ["destructive", request({ tool: "restart_service", effect: "destructive", scope: { services: ["api"] } }), "default:destructive"],
    ["external", request({ tool: "http_request", effect: "external", scope: { hosts: ["api.example.com:443"] } }), "default:external"],
    ["a write beyond the workspace", request({ scope: { paths: ["a"], hosts: ["x.com:443"] } }), "default:write"],
  ])("cannot allow %s where the built-in defaults ask", (_label, call, defaultRule) => {
    const decision = decidePermission(call, { packet: goalAllowAll, config: [] });
    expect(decision).toMatchObject({ decision: "ask", rule: defaultRule });
    expect(decision.ignored).toMatchObject({ rule: "goal-allow-all", decision: "allow" });
    expect(decision.ignored?.reason).toMatch(/can only tighten/);
  });

  it("cannot loosen a deployment deny into ask or allow", () => {
    const config = [rule({ id: "ops-deny", decision: "deny", tool: "restart_service" })];
    const call = request({ tool: "restart_service", effect: "destructive", scope: { services: ["api"] } });
    for (const decision of ["allow", "ask"] as const) {
      const decided = decidePermission(call, { packet: [rule({ id: `goal-${decision}`, decision })], config });
      expect(decided).toMatchObject({ decision: "deny", rule: "ops-deny", ignored: { rule: `goal-${decision}` } });
    }
  });

  it("can narrow what the deployment allows, to ask or deny", () => {
    const call = request({ tool: "read_file", effect: "read", scope: { paths: ["secrets/a"] } });
    expect(
      decidePermission(call, { packet: [rule({ id: "goal-ask", decision: "ask", paths: ["secrets/**"] })], config: [] }),
    ).toMatchObject({
      decision: "ask",
      rule: "goal-ask",
    });
    expect(
      decidePermission(call, { packet: [rule({ id: "goal-deny", decision: "deny", paths: ["secrets/**"] })], config: [] }).decision,
    ).toBe("deny");
  });

  it("agrees with a deployment that already allows, and names the deployment's rule", () => {
    const config = [rule({ id: "ops-node", tool: "run_command", decision: "allow", commands: ["node"] })];
    const call = request({ tool: "run_command", effect: "destructive", scope: { commands: ["node"], paths: ["."] } });
    const decided = decidePermission(call, {
      packet: [rule({ id: "goal-node", tool: "run_command", decision: "allow", commands: ["node"] })],
      config,
    });
    expect(decided).toMatchObject({ decision: "allow", rule: "ops-node" });
    expect(decided.ignored).toBeUndefined();
  });

  it("within a layer the first applicable rule decides", () => {
    const config = [rule({ id: "first", decision: "allow", tool: "write_file" }), rule({ id: "second", decision: "ask", tool: "*" })];
    expect(decidePermission(request(), { packet: [], config }).rule).toBe("first");
  });

  it("a tool that demands approval turns allow into ask, never deny into ask", () => {
    expect(decidePermission(request(), none, { forceAsk: "always" })).toMatchObject({ decision: "ask", rule: "tool:write_file:approval" });
    const deny = { packet: [], config: [rule({ id: "nope", decision: "deny" })] };
    expect(decidePermission(request(), deny, { forceAsk: "always" }).decision).toBe("deny");
  });
});

describe("hosts with ports", () => {
  it("matches a port-naming pattern on that port only, a bare one on any port", () => {
    expect(hostMatches("api.example.com:443", "api.example.com:443")).toBe(true);
    expect(hostMatches("api.example.com:443", "api.example.com:8443")).toBe(false);
    expect(hostMatches("API.example.com.:443", "api.example.com:443")).toBe(true);
    expect(hostMatches("*.example.com:443", "a.b.example.com:443")).toBe(true);
    expect(hostMatches("api.example.com", "api.example.com:8443")).toBe(true);
    expect(hostMatches("api.example.com:443", "api.example.com")).toBe(false);
    expect(hostMatches("[::1]:8080", "[::1]:8080")).toBe(true);
    expect(hostMatches("[::1]:8080", "[::2]:8080")).toBe(false);
  });
});

describe("rules over patterns", () => {
  const read = (paths: string[], enumerates = false) => request({ tool: "list_files", effect: "read", scope: { paths }, enumerates });

  it("an ask rule applies when any resource the call may touch is covered, like deny", () => {
    const layers = {
      packet: [],
      config: [rule({ id: "hr-ask", decision: "ask", paths: ["hr/**"] }), rule({ id: "all", decision: "allow", effect: ["destructive"] })],
    };
    const both = request({ effect: "destructive", scope: { paths: ["src/a", "hr/b"] } });
    expect(decidePermission(both, layers).rule).toBe("hr-ask");
  });

  it("a deny rule decides a call whose glob may reach what it covers, unless the tool screens each entry", () => {
    const layers = { packet: [], config: [rule({ id: "no-secrets", decision: "deny", paths: ["secrets/**"] })] };
    expect(decidePermission(read(["**"]), layers).decision).toBe("deny");
    expect(decidePermission(read(["**"], true), layers).decision).toBe("allow");
    expect(decidePermission(read(["secrets/*"], true), layers)).toMatchObject({ decision: "deny", rule: "no-secrets" });
    expect(decidePermission(read(["src/**"]), layers).decision).toBe("allow");
  });

  it("an allow rule allows a glob only when its patterns contain it: src/* does not contain src/**", () => {
    const layers = { packet: [], config: [rule({ id: "src-top", decision: "allow", paths: ["src/*"], effect: ["destructive"] })] };
    expect(decidePermission(request({ effect: "destructive", scope: { paths: ["src/*.ts"] } }), layers).rule).toBe("src-top");
    expect(decidePermission(request({ effect: "destructive", scope: { paths: ["src/**"] } }), layers).rule).toBe("default:destructive");
  });
});
