export { actionHashOf, type ApprovalAction } from "./action-hash.ts";
export { type ApprovalGateDeps, type GateResult, passApprovalGate } from "./approval-gate.ts";
export { ApprovalDecisionClaims, ApprovalSigner, ApprovalVerifier, decisionProblem } from "./approval-signature.ts";
export {
  ApprovalDecisionInput,
  type ApprovalFilter,
  ApprovalStore,
  type ApprovalStoreOptions,
} from "./approval-store.ts";
