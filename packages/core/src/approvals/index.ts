export { actionHashOf, type ApprovalAction } from "@rein/guard";
export { ApprovalDecisionClaims, ApprovalSigner, ApprovalVerifier, decisionProblem } from "@rein/guard";
export {
  ApprovalDecisionInput,
  type ApprovalFilter,
  ApprovalStore,
  type ApprovalStoreOptions,
} from "./approval-store.ts";
