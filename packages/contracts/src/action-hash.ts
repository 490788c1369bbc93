import { hashOf, type Sha256 } from "./canonical-json.ts";
import type { Scope } from "./scope.ts";

export interface ApprovalAction {
  tool: string;
  /** The validated arguments, so defaults filled in do not make two hashes of one action. */
  args: unknown;
  /** The normalized scope the call touches. */
  scope: Scope;
}

/** What an approval is bound to: changing any argument or resource changes it. */
export function actionHashOf(action: ApprovalAction): Sha256 {
  return hashOf({ tool: action.tool, args: action.args, scope: action.scope });
}
