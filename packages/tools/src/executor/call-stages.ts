import type { CallStage } from "./call-in-progress.ts";
import { checkBudget } from "./stages/check-budget.ts";
import { checkScope } from "./stages/check-scope.ts";
import { decidePolicy } from "./stages/decide-policy.ts";
import { findRecorded } from "./stages/find-recorded.ts";
import { limitSize } from "./stages/limit-size.ts";
import { observe } from "./stages/observe.ts";
import { passApproval } from "./stages/pass-approval.ts";
import { recordIntent } from "./stages/record-intent.ts";
import { recordOutcome } from "./stages/record-outcome.ts";
import { refuseCutOff } from "./stages/refuse-cut-off.ts";
import { resolveSurface } from "./stages/resolve-surface.ts";
import { runCall } from "./stages/run-call.ts";
import { sanitize } from "./stages/sanitize.ts";
import { validateInput } from "./stages/validate-input.ts";
import { validateOutput } from "./stages/validate-output.ts";

/**
 * The pipeline of ARCHITECTURE §5, in order. Every call goes through these
 * until one of them ends it (a refusal, a denial, a suspension, the
 * observation); the ending is then traced by `endCall`. A new stage is a
 * file in `stages/` and a line here.
 */
export const CALL_STAGES: readonly CallStage[] = [
  refuseCutOff,
  resolveSurface,
  validateInput,
  checkScope,
  decidePolicy,
  findRecorded,
  passApproval,
  checkBudget,
  recordIntent,
  runCall,
  validateOutput,
  recordOutcome,
  limitSize,
  sanitize,
  observe,
];
