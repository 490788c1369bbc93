import { setTimeout as delay } from "node:timers/promises";
import { ReinError } from "@rein/contracts";
import type { FailureClass } from "@rein/contracts/calls";
import type { AnyTool, ToolContext } from "../define-tool.ts";
import { classifyFailure } from "./failure-class.ts";

export interface RetryOptions {
  /** Attempts in all, for idempotent tools failing transiently. @defaultValue 3 */
  maxAttempts?: number;
  /** First backoff; doubles per attempt. @defaultValue 100 */
  backoffMs?: number;
}

export type RunResult =
  | { ok: true; output: unknown; attempts: number; durationMs: number }
  | { ok: false; error: unknown; failure: FailureClass; timedOut: boolean; attempts: number; durationMs: number };

/**
 * Runs a tool with its timeout and the step's abort signal; a timeout
 * aborts the signal the tool was given, so its work (a process tree, a
 * request) stops. A tool that ignores its signal is still abandoned. Only
 * idempotent tools are retried, only for transient failures, a bounded
 * number of times, and a timed-out call only when it is a read: retrying a
 * side-effecting call could perform its effect twice.
 */
export async function runTool(
  tool: AnyTool,
  args: unknown,
  contextFor: (signal: AbortSignal) => ToolContext,
  options: { signal: AbortSignal; retry?: RetryOptions },
): Promise<RunResult> {
  const maxAttempts = tool.idempotent ? Math.max(1, options.retry?.maxAttempts ?? 3) : 1;
  const backoffMs = options.retry?.backoffMs ?? 100;
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptOnce(tool, args, contextFor, options.signal);
    // To the microsecond: the float's last digits are noise, and the two events that carry it store them.
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    if (outcome.ok) return { ok: true, output: outcome.output, attempts: attempt, durationMs };
    // A side-effecting call that timed out may have done its work: the same call again could do it twice.
    const sideEffecting = tool.effect !== "read";
    const failure = options.signal.aborted
      ? "fatal"
      : outcome.timedOut
        ? sideEffecting
          ? "different_action"
          : timedOutReadFailure(outcome.error)
        : classifyFailure(outcome.error);
    if (failure !== "retryable" || attempt >= maxAttempts) {
      return { ok: false, error: outcome.error, failure, timedOut: outcome.timedOut, attempts: attempt, durationMs };
    }
    try {
      await delay(backoffMs * 2 ** (attempt - 1), undefined, { signal: options.signal });
    } catch {
      return { ok: false, error: outcome.error, failure: "fatal", timedOut: false, attempts: attempt, durationMs };
    }
  }
}

/** A read that timed out is tried again, unless its tool said trying again cannot help (an MCP call past its cap). */
function timedOutReadFailure(error: unknown): FailureClass {
  return ReinError.isInstance(error) && error.details.failure === "different_action" ? "different_action" : "retryable";
}

async function attemptOnce(
  tool: AnyTool,
  args: unknown,
  contextFor: (signal: AbortSignal) => ToolContext,
  outer: AbortSignal,
): Promise<{ ok: true; output: unknown } | { ok: false; error: unknown; timedOut: boolean }> {
  // One controller the tool's signal comes from, aborted by the step's signal or the timeout: AbortSignal.any
  // would cost ~30 µs a call on Node 20 and keep each call's signal on the step's long-lived one until a GC.
  const attempt = new AbortController();
  const { signal } = attempt;
  let timedOut = false;
  let rejectAborted: ((reason: unknown) => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    rejectAborted = reject;
  });
  const abort = (reason: unknown) => {
    if (signal.aborted) return;
    attempt.abort(reason);
    rejectAborted?.(reason ?? new ReinError("tool_failed", `${tool.name} was aborted`));
  };
  const onOuterAbort = () => abort(outer.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    abort(new ReinError("tool_failed", `${tool.name} did not finish within ${tool.timeoutMs} ms`, { retryable: true }));
  }, tool.timeoutMs);
  if (outer.aborted) onOuterAbort();
  else outer.addEventListener("abort", onOuterAbort, { once: true });
  try {
    const output = await Promise.race([Promise.resolve().then(() => tool.run(args, contextFor(signal))), aborted]);
    return { ok: true, output };
  } catch (error) {
    // A tool that enforces its own deadline (an MCP call's, extended by progress) timed out as surely as one cut off here.
    return { ok: false, error, timedOut: timedOut || (ReinError.isInstance(error) && error.details.timedOut === true) };
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", onOuterAbort);
    aborted.catch(() => {});
  }
}
