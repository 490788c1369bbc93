import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { roleIncludes, seesRun, TokensFile, tokensOfFile } from "../../src/api/api-tokens.ts";

const hex = (token: string) => createHash("sha256").update(token).digest("hex");

describe("the tokens file", () => {
  it("reads each token by its sha256 or the variable holding it, with its role and runs; a bare string keeps what it could always do", () => {
    const file = TokensFile.parse({
      legacy: "legacy-secret-0123456789",
      vera: { role: "viewer", sha256: hex("vera-secret-0123456789"), runs: { metadata: { team: "payments" } } },
      otto: { role: "operator", env: "OTTO_TOKEN" },
    });
    const tokens = tokensOfFile(file, { OTTO_TOKEN: "otto-secret-0123456789" });
    expect(tokens.map(({ sha256, ...caller }) => ({ ...caller, sha256: sha256.toString("hex") }))).toEqual([
      { identity: "legacy", role: "admin", sha256: hex("legacy-secret-0123456789") },
      { identity: "vera", role: "viewer", runs: { metadata: { team: "payments" } }, sha256: hex("vera-secret-0123456789") },
      { identity: "otto", role: "operator", sha256: hex("otto-secret-0123456789") },
    ]);
  });

  const invalid: Record<string, unknown> = {
    "a role that does not exist": { ana: { role: "root", env: "X" } },
    "both a hash and a variable": { ana: { role: "viewer", env: "X", sha256: hex("x") } },
    "neither a hash nor a variable": { ana: { role: "viewer" } },
    "a hash that is not sha256 hex": { ana: { role: "viewer", sha256: "abc" } },
    "the token itself where its hash goes": { ana: { role: "viewer", token: "ana-secret-0123456789" } },
    "a run scope with no pair": { ana: { role: "viewer", env: "X", runs: { metadata: {} } } },
    "a short token in clear": { ana: "short" },
  };
  for (const [label, value] of Object.entries(invalid)) {
    it(`refuses ${label}`, () => {
      expect(TokensFile.safeParse(value).success).toBe(false);
    });
  }

  it("refuses a variable that is unset or holds a short token", () => {
    const file = TokensFile.parse({ otto: { role: "operator", env: "OTTO_TOKEN" } });
    expect(() => tokensOfFile(file, {})).toThrow(/otto is read from OTTO_TOKEN, which is not set/);
    expect(() => tokensOfFile(file, { OTTO_TOKEN: "short" })).toThrow(/OTTO_TOKEN is too short; expected at least 16/);
  });
});

describe("roles and run scopes", () => {
  it("orders the roles viewer < operator < admin", () => {
    expect(roleIncludes("admin", "operator")).toBe(true);
    expect(roleIncludes("operator", "operator")).toBe(true);
    expect(roleIncludes("operator", "admin")).toBe(false);
    expect(roleIncludes("viewer", "operator")).toBe(false);
  });

  it("shows a limited token a run only when its goal holds every pair the scope names", () => {
    const caller = { identity: "pat", role: "operator" as const, runs: { metadata: { team: "payments", env: "prod" } } };
    expect(seesRun(caller, { metadata: { team: "payments", env: "prod", owner: "x" } })).toBe(true);
    expect(seesRun(caller, { metadata: { team: "payments" } })).toBe(false);
    expect(seesRun(caller, { metadata: {} })).toBe(false);
    expect(seesRun({ identity: "ana", role: "viewer" }, { metadata: {} })).toBe(true);
  });
});
