import { z } from "zod";
import { RunBudget } from "./budget.ts";
import { Role } from "./role.ts";
import { PolicyRule } from "./permission.ts";
import { ToolGrant } from "./scope.ts";

export const MAX_GOAL_TEXT = 20_000;

/**
 * A named seed: a directory relative to the deployment's `seedsRoot`, never
 * a path of its own; whoever submits a goal names one of the seeds the
 * deployment offers and cannot point a run at any other directory.
 */
export const SeedName = z
  .string()
  .min(1)
  .max(512)
  .refine(
    (name) =>
      !name.startsWith("/") &&
      !name.includes("\\") &&
      !name.includes("\0") &&
      name.split("/").every((part) => part !== ".." && part !== "."),
    {
      message:
        'expected the name of a seed under the deployment\'s seedsRoot (e.g. "billing-service"), not a path: no leading /, no . or .. segments',
    },
  );

export const ModelChoice = z.object({
  provider: z.string().min(1),
  model: z.string().min(1).optional(),
});
export type ModelChoice = z.infer<typeof ModelChoice>;

/**
 * What a goal asks for, which decides what may end its run `done`:
 * `question`, an answer about the world (a supported claim, or an explicit
 * gap saying what could not be established); `change`, something done to
 * the world (at least one claim backed by an observation of this run);
 * `text`, a piece of writing such as a summary or a translation (the text
 * is the deliverable: a claim may cite the step output that produced it).
 */
export const GoalKind = z.enum(["question", "change", "text"]);
export type GoalKind = z.infer<typeof GoalKind>;

/** What a user asks for, and the outer limits of everything the run may do. */
export const Goal = z.object({
  schemaVersion: z.literal(1).default(1),
  text: z
    .string()
    .trim()
    .min(1, "the goal text is empty; expected a sentence saying what to achieve")
    .max(MAX_GOAL_TEXT, `the goal text is too long; expected at most ${MAX_GOAL_TEXT} characters`),
  intent: z.record(z.string(), z.unknown()).optional(),
  /**
   * What the goal asks for (see `GoalKind`), said once: at submit, or else
   * by the planner's first plan that starts work (`Plan.goal_kind`), after
   * which it does not change. A run whose kind was never said is held to
   * the strictest reading, `change`.
   */
  kind: GoalKind.optional(),
  /** Every tool the run may ever use, with its widest scope. */
  tools: z
    .array(ToolGrant)
    .refine((grants) => grants.every((grant) => grant.checkSecrets === undefined || grant.name === "run_command"), {
      message:
        "checkSecrets names the secrets acceptance checks get, and checks run as run_command; expected it only on the run_command grant",
    })
    .default([]),
  budget: RunBudget.default(RunBudget.parse({})),
  /**
   * The most steps of this run in flight at once, and the most children one
   * step may wait for; never more than config `packets.maxParallel`. At 2 or
   * more the planner is offered parallel groups. @defaultValue config's, with no planner groups
   */
  maxParallel: z.number().int().positive().optional(),
  policy: z.array(PolicyRule).default([]),
  models: z.partialRecord(Role, ModelChoice).default({}),
  /** The seed the run works on (see `SeedName`); the run's workspace starts as a copy or git worktree of it. */
  workspace: SeedName.optional(),
  metadata: z.record(z.string(), z.string()).default({}),
});
export type Goal = z.infer<typeof Goal>;
export type GoalInput = z.input<typeof Goal>;
