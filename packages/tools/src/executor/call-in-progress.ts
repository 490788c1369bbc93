import { type PermissionDecision, type Scope, type ToolGrant, ReinError } from "@rein/contracts";
import type { FailureClass, CallIntent, RecordedOutcome, RecordedResult } from "@rein/contracts/calls";
import type { PreparedUntrusted, PresentedUntrusted } from "@rein/presenter";
import type { AnyTool } from "../define-tool.ts";
import type { ResolvedExecutorDeps } from "../tool-executor-deps.ts";
import type { ModelToolCall, StepExecutionContext } from "../tool-executor.ts";
import type { CallEnding, CallIdentity } from "./call-end-records.ts";
import type { CallTrace } from "./call-trace.ts";

/** How the tool's work turned out, whoever did it: this call, an earlier run of it, or the run's read cache. */
export type Execution =
  /** Fresh output of this call, not yet checked against the tool's output schema. */
  | { kind: "output"; output: unknown; attempts: number; durationMs: number }
  | { kind: "result"; result: RecordedResult; source: "executed" | "replayed" | "cache"; attempts: number; durationMs: number }
  | {
      kind: "failed";
      status: "error" | "timeout";
      /** The tool's error text as it threw it: presented like an output, never shown raw. */
      error: string;
      failure: FailureClass;
      /** Replayed from an earlier run of this same call, not run now. */
      replayed: boolean;
      attempts: number;
      durationMs: number;
    };

/**
 * One call as it moves through the stages. Each stage reads what earlier
 * stages set and sets what it found; `need` says loudly when the stage list
 * is out of order instead of letting a stage run on a missing value.
 */
export interface CallInProgress {
  readonly deps: ResolvedExecutorDeps;
  readonly call: ModelToolCall;
  readonly context: StepExecutionContext;
  readonly identity: CallIdentity;
  readonly trace: CallTrace;
  /** runId:stepId:attempt:index, the key of this call's idempotency record. */
  readonly idempotencyKey: string;
  /** Set by resolve-surface. */
  tool?: AnyTool;
  grant?: ToolGrant;
  /** The arguments as the tool's schema parsed them; set by validate-input. */
  input?: { args: unknown };
  /** Set by check-scope. */
  scope?: Scope;
  /** Set by decide-policy. */
  decision?: PermissionDecision;
  /** How an earlier run of this same call ended; set by find-recorded (or record-intent, when another run got there first). */
  recorded?: RecordedOutcome;
  /** An earlier run's intent under this key is run again by a `tools.repeatSafe` rule; set (and traced) once. */
  repeating?: true;
  /** The intent this call wrote before it started; set by record-intent, replaced by the outcome in record-outcome. */
  intent?: CallIntent;
  /** Set by run-call. */
  execution?: Execution;
  /** The text to show, redacted and bounded; set by limit-size. */
  prepared?: PreparedUntrusted & { artifactId?: string };
  /** Sanitized and fenced; set by sanitize. */
  presented?: PresentedUntrusted;
}

/** A stage ends the call by returning how it ended, or passes it on by returning nothing. */
export type CallStage = (call: CallInProgress) => Promise<CallEnding | undefined>;

/** A value an earlier stage must have set: its absence is a bug in the stage order, not a model error. */
export function need<Key extends keyof CallInProgress>(call: CallInProgress, key: Key): NonNullable<CallInProgress[Key]> {
  const value = call[key];
  if (value === undefined || value === null) throw stageOrderError(`"${String(key)}" is used before the stage that sets it ran`);
  return value;
}

export function stageOrderError(problem: string): ReinError {
  return new ReinError("contract_invalid", `executor stage order: ${problem}`);
}
