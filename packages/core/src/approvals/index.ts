export { actionHashOf, type ApprovalAction } from "./action-hash.ts";
export { type GateResult, passApprovalGate } from "./approval-gate.ts";
export {
  ApprovalDecisionInput,
  type ApprovalFilter,
  ApprovalStore,
  type ApprovalStoreOptions,
} from "./approval-store.ts";
