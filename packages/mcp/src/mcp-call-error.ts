import { ReinError } from "@rein/contracts";
import type { FailureClass } from "@rein/contracts/calls";

/** The JSON-RPC and MCP SDK error codes a call can fail with (the SDK's `ErrorCode`). */
export const McpErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
} as const;

interface CodeMeaning {
  /** What went wrong, for the message. */
  what: string;
  failure: FailureClass;
  /** What the model (or the operator) should do about it. */
  advice: string;
  timedOut?: boolean;
}

/**
 * What each code means for the next move. The server refusing the arguments
 * is the model's to fix; a closed connection or the server's own fault may
 * pass (the supervisor restarts a dead server); a request the server cannot
 * parse or does not implement is a protocol mismatch no retry or argument
 * change will cure.
 */
const MEANINGS: Record<number, CodeMeaning> = {
  [McpErrorCode.InvalidParams]: {
    what: "refused the arguments (invalid params)",
    failure: "different_action",
    advice: "correct the arguments and call again",
  },
  [McpErrorCode.InternalError]: { what: "failed internally", failure: "retryable", advice: "it may work if tried again later" },
  [McpErrorCode.ConnectionClosed]: {
    what: "closed the connection",
    failure: "retryable",
    advice: "the server is restarted; it may work if tried again",
  },
  [McpErrorCode.RequestTimeout]: {
    what: "did not answer in time",
    failure: "retryable",
    advice: "it may work if tried again",
    timedOut: true,
  },
  [McpErrorCode.InvalidRequest]: {
    what: "refused the request as invalid (a protocol mismatch)",
    failure: "fatal",
    advice: "this tool cannot be used as Rein calls it",
  },
  [McpErrorCode.MethodNotFound]: {
    what: "does not implement the method (a protocol mismatch)",
    failure: "fatal",
    advice: "this tool cannot be used as Rein calls it",
  },
  [McpErrorCode.ParseError]: {
    what: "could not parse the request (a protocol mismatch)",
    failure: "fatal",
    advice: "this tool cannot be used as Rein calls it",
  },
};

/** A call that kept reporting progress and still ran past `maxTotalTimeoutMs` would only do so again. */
const PAST_THE_CAP: CodeMeaning = {
  what: "did not finish within the most a call may take",
  failure: "different_action",
  advice: "a call this long cannot finish here: ask for less work or choose a different action",
  timedOut: true,
};

/** The SDK's own cap error and Rein's (mcp-session.ts) both carry `maxTotalTimeout` in their data. */
function pastTheCap(error: unknown): boolean {
  const data = (error as { data?: unknown }).data;
  return typeof data === "object" && data !== null && "maxTotalTimeout" in data;
}

/**
 * An error from the MCP SDK (an `McpError` carrying a JSON-RPC code) as a
 * ReinError of the failure class its code means; anything else is returned
 * as it is. A timeout is marked `timedOut`, so the executor treats it as one
 * (a side-effecting call that timed out is not retried: it may have done its
 * work). Codes not listed (server-defined ones) are the model's to act on.
 */
export function mcpCallError(error: unknown, call: { server: string; what: string }): unknown {
  const code = jsonRpcCodeOf(error);
  if (code === undefined) return error;
  const meaning = pastTheCap(error)
    ? PAST_THE_CAP
    : (MEANINGS[code] ?? {
        what: `answered with error ${code}`,
        failure: "different_action" as const,
        advice: "choose a different action",
      });
  const said = error instanceof Error ? error.message : String(error);
  return new ReinError("tool_failed", `MCP server ${call.server} ${meaning.what} for ${call.what}: ${said}; ${meaning.advice}`, {
    cause: error,
    retryable: meaning.failure === "retryable",
    details: { failure: meaning.failure, mcpErrorCode: code, ...(meaning.timedOut ? { timedOut: true } : {}) },
  });
}

/** The SDK's McpError is an Error with a negative numeric `code`; a Streamable HTTP error's code is a (positive) HTTP status. */
function jsonRpcCodeOf(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && Number.isInteger(code) && code < 0 ? code : undefined;
}
