import { z } from "zod";
import { JoinRule } from "@rein/contracts";
import { StepPhase, VerdictDecision } from "@rein/contracts/run";
import { traceKinds } from "./trace-kind.ts";

/** One member of a group as the join read it: in the order asked, never the order finished. */
const joinInput = z.object({ stepId: z.string(), phase: StepPhase, decision: VerdictDecision.nullable() });

/** Parallel groups: steps dispatched at once, and how they joined. */
export const groupEvents = traceKinds({
  "group.started": {
    summary: "A plan's parallel steps, or the children a step asked for in one turn, were dispatched at once.",
    emittedBy: "controller",
    payload: z.object({
      groupId: z.string(),
      parentStepId: z.string().nullable(),
      stepIds: z.array(z.string()),
      join: JoinRule,
      /** Each member's share of the budget, in the order of `stepIds`. */
      slices: z.array(z.record(z.string(), z.number())),
    }),
  },
  "group.refused": {
    summary: "A group asked for more than the limits allow (maxParallel, steps or budget left); the asker is told why.",
    emittedBy: "controller",
    payload: z.object({ parentStepId: z.string().nullable(), asked: z.number().int(), reason: z.string() }),
  },
  "group.joined": {
    summary: "A group's join rule was decided: its inputs in the order asked, and the members it cancelled.",
    emittedBy: "controller",
    payload: z.object({
      groupId: z.string(),
      outcome: z.enum(["joined", "failed"]),
      inputs: z.array(joinInput),
      cancelled: z.array(z.string()),
    }),
  },
});
