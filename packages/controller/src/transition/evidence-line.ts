import type { EvidenceEntry } from "@rein/contracts/run";

/**
 * How a piece of run evidence is shown to a model, in the planner's digest and
 * in a step's packet alike: its id, and "tool: summary", so a model can tell
 * where evidence came from and cite it (scripted models find it by the tool).
 */
export const evidenceLine = ({ id, summary, tool }: EvidenceEntry): { id: string; summary: string } => ({
  id,
  summary: `${tool}: ${summary}`,
});
