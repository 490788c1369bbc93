import { z } from "zod";
import { ClaimCheck } from "@rein/contracts/run";
import { traceKinds } from "./trace-kind.ts";

/** What the evaluator found before its verdict: claims, fingerprints, loops, check commands. */
export const evaluatorEvents = traceKinds({
  "claims.checked": {
    summary: "Each claim of an answer was checked against the run's evidence.",
    emittedBy: "evaluator",
    payload: z.object({ claims: z.array(ClaimCheck), proposedBy: z.literal("planner").optional() }),
  },
  "fingerprints.recorded": {
    summary: "The fingerprints of the step's calls, for loop detection across attempts.",
    emittedBy: "evaluator",
    payload: z.object({ attempt: z.number().int(), calls: z.array(z.string()), step: z.string(), attempts: z.string() }),
  },
  "loop.detected": {
    summary: "The step repeated calls without progress.",
    emittedBy: "evaluator",
    payload: z.object({
      kind: z.enum(["repeat", "cycle", "repeat_after_retry", "no_progress"]),
      fingerprint: z.string(),
      description: z.string(),
      loopedBefore: z.boolean(),
      blocking: z.boolean(),
    }),
  },
  "check.command_finished": {
    summary: "A check command of an acceptance criterion ran in the sandbox.",
    emittedBy: "evaluator",
    payload: z.object({
      argv: z.array(z.string()),
      exitCode: z.number().int().nullable(),
      sandbox: z.string(),
      killedBy: z.string().nullable(),
    }),
  },
});
