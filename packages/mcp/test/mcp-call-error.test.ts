import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { McpErrorCode, mcpCallError } from "../src/mcp-call-error.ts";
import { ReinError } from "@rein/contracts";
import { classifyFailure } from "@rein/tools";

const classed = (code: number) => {
  const error = mcpCallError(new McpError(code, "said the server"), { server: "srv", what: "tool echo" });
  if (!ReinError.isInstance(error)) throw new Error("expected a ReinError");
  return error;
};

describe("an MCP SDK error's JSON-RPC code decides its failure class", () => {
  it.each([
    [McpErrorCode.InvalidParams, "different_action", /refused the arguments \(invalid params\).*correct the arguments/],
    [McpErrorCode.InternalError, "retryable", /failed internally/],
    [McpErrorCode.ConnectionClosed, "retryable", /closed the connection/],
    [McpErrorCode.RequestTimeout, "retryable", /did not answer in time/],
    [McpErrorCode.InvalidRequest, "fatal", /protocol mismatch/],
    [McpErrorCode.MethodNotFound, "fatal", /protocol mismatch/],
    [McpErrorCode.ParseError, "fatal", /protocol mismatch/],
    [-32042, "different_action", /answered with error -32042/],
  ] as const)("code %i is %s", (code, failure, message) => {
    const error = classed(code);
    expect(classifyFailure(error)).toBe(failure);
    expect(error.retryable).toBe(failure === "retryable");
    expect(error.message).toMatch(message);
    expect(error.message).toContain("MCP server srv");
    expect(error.message).toContain("said the server");
    expect(error.details.mcpErrorCode).toBe(code);
  });

  it("marks a request timeout as a timeout, so a side-effecting call that timed out is not repeated", () => {
    expect(classed(McpErrorCode.RequestTimeout).details.timedOut).toBe(true);
    expect(classed(McpErrorCode.InternalError).details.timedOut).toBeUndefined();
  });

  it("says a call that ran past its cap is not worth repeating, with or without progress", () => {
    const capped = mcpCallError(
      new McpError(McpErrorCode.RequestTimeout, "Maximum total timeout exceeded", { maxTotalTimeout: 3_000, totalElapsed: 3_010 }),
      {
        server: "srv",
        what: "tool slow",
      },
    );
    expect(classifyFailure(capped)).toBe("different_action");
    expect((capped as ReinError).details.timedOut).toBe(true);
    expect((capped as ReinError).message).toContain("ask for less work");
  });

  it("leaves errors without a JSON-RPC code as they are (an HTTP status is not one)", () => {
    const supervisor = new ReinError("tool_failed", "breaker open", { retryable: true });
    expect(mcpCallError(supervisor, { server: "srv", what: "tool echo" })).toBe(supervisor);
    const http = Object.assign(new Error("Streamable HTTP error: 401"), { code: 401 });
    expect(mcpCallError(http, { server: "srv", what: "tool echo" })).toBe(http);
  });
});
