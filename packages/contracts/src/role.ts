import { z } from "zod";

/** Who asks a model: the planner, a worker, the evaluator's rules or its judge. */
export const Role = z.enum(["planner", "worker", "evaluator", "judge"]);
export type Role = z.infer<typeof Role>;
