import type { Plan, StepSpec } from "@rein/contracts";
import type { PlannerContext } from "@rein/contracts/messages";

const STOP_WORDS = new Set(
  "a an the and or of to in on for with from by at as is are be it its this that these those so then than into about all any each".split(
    " ",
  ),
);

/** Verbs that name something a worker can do; a step without a tool must use one of them. */
const ACTION_VERBS = new Set(
  (
    "read write edit change fix patch add remove delete rename move create run execute test build install search grep find list " +
    "query inspect check verify compare measure count collect gather fetch download call summarize summarise report draft diagnose " +
    "analyze analyse review restart stop start deploy roll rollback revert update upgrade configure correct replace extract parse compute"
  ).split(" "),
);

const contentWords = (text: string): string[] => (text.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter((word) => !STOP_WORDS.has(word));

/**
 * What zod cannot check about a plan: the step uses only granted tools,
 * cites only known evidence, names an action, and is a step rather than the
 * goal restated; a finished plan's answer says something checkable (a claim
 * or a gap) and cites only known evidence — any observation of the run, not
 * only the recent ones listed. Whether the answer is verified is the
 * evaluator's call, not the planner's. Each message says what was wrong and
 * what was expected, because the model reads it in the repair turn.
 */
export function checkPlan(plan: Plan, context: PlannerContext): string | undefined {
  const known = new Set([...context.evidence.map((entry) => entry.id), ...context.knownEvidenceIds]);
  const kind = goalKindProblem(plan, context);
  if (kind) return kind;
  if (plan.done) {
    if (!plan.answer) return "done is true but answer is missing; expected {answer, claims, gaps}";
    if (plan.answer.claims.length === 0 && plan.answer.gaps.length === 0) {
      return "done is true but answer has no claims and no gaps; expected claims that each cite the evidence ids backing them, or gaps saying what could not be established";
    }
    const invented = plan.answer.claims.flatMap((claim) => claim.evidence.filter((id) => !known.has(id)));
    if (invented.length > 0) return `answer.claims cite unknown evidence ${invented.join(", ")}; expected ids from the evidence list`;
    return undefined;
  }
  if (plan.parallel) {
    if (!context.maxParallel) return "parallel is not offered to this run; expected one current_step";
    if (plan.parallel.steps.length > context.maxParallel) {
      return `parallel names ${plan.parallel.steps.length} steps, more than the ${context.maxParallel} this run may run at once`;
    }
    for (const [index, step] of plan.parallel.steps.entries()) {
      const problem = checkStep(step, context, known);
      if (problem) return `parallel.steps[${index}]: ${problem.replace(/^current_step\./, "")}`;
    }
    return undefined;
  }
  const step = plan.current_step;
  if (!step) return "current_step is missing; expected a fully specified step";
  return checkStep(step, context, known);
}

function checkStep(step: StepSpec, context: PlannerContext, known: ReadonlySet<string>): string | undefined {
  const granted = new Set(context.grantedTools);
  const unknown = step.tools.filter((tool) => !granted.has(tool));
  if (unknown.length > 0) {
    return `current_step.tools names ${unknown.join(", ")}, which the run was not granted; expected a subset of: ${context.grantedTools.join(", ") || "(none)"}`;
  }
  const outsideScope = commandChecksOutsideScope(step, context);
  if (outsideScope) return outsideScope;
  const invented = step.evidence_ids.filter((id) => !known.has(id));
  if (invented.length > 0)
    return `current_step.evidence_ids names unknown evidence ${invented.join(", ")}; expected ids from the evidence list`;
  return restatesGoal(step, context.goal) ?? namesNoAction(step);
}

/**
 * What the goal asks for is said once: at submit, or by the planner with
 * the plan that starts the work. A plan may not change it afterwards, nor
 * say it with a plan that ends the run, which would let one plan both
 * choose how its answer is judged and end the run on that answer.
 */
function goalKindProblem(plan: Plan, context: PlannerContext): string | undefined {
  if (plan.goal_kind === undefined) return undefined;
  if (context.goalKind !== undefined && plan.goal_kind !== context.goalKind) {
    return `goal_kind says ${plan.goal_kind}, but this run's goal is a ${context.goalKind} goal, which was said once and does not change; expected goal_kind "${context.goalKind}" or none`;
  }
  if (context.goalKind === undefined && plan.done) {
    return "goal_kind is said with the plan that starts the work, not with a plan that ends the run; expected a current_step with goal_kind, or done without goal_kind (the goal is then held to be a change)";
  }
  return undefined;
}

/**
 * An acceptance `command` check runs as the goal's `run_command` (its grant,
 * policy and sandbox), so one the goal could not run is refused here, where
 * the planner can still repair it.
 */
function commandChecksOutsideScope(step: StepSpec, context: PlannerContext): string | undefined {
  const granted = context.grantedTools.includes("run_command");
  for (const [index, criterion] of step.acceptance_criteria.entries()) {
    if (criterion.kind !== "command") continue;
    const program = criterion.argv[0] ?? "";
    const where = `current_step.acceptance_criteria[${index}].argv`;
    if (!granted)
      return `${where} runs ${JSON.stringify(program)}, but the goal does not grant run_command, so no command check can run; expected a file_contains, output_matches or judge criterion`;
    if (context.checkCommands && !context.checkCommands.includes(program)) {
      return `${where} runs ${JSON.stringify(program)}, which the goal's run_command scope does not allow; expected a program among: ${context.checkCommands.join(", ") || "(none)"}, or a file_contains, output_matches or judge criterion`;
    }
  }
  return undefined;
}

/**
 * A step restates the goal when its objective is the goal's text, or when it
 * adds fewer than two words of its own and most of its words are the goal's.
 */
function restatesGoal(step: StepSpec, goal: string): string | undefined {
  const objective = contentWords(step.objective);
  const goalWords = new Set(contentWords(goal));
  if (objective.length === 0) return "current_step.objective has no words; expected one concrete action";
  const own = new Set(objective.filter((word) => !goalWords.has(word)));
  const shared = objective.filter((word) => goalWords.has(word)).length / objective.length;
  if (step.objective.trim().toLowerCase() === goal.trim().toLowerCase() || (own.size < 2 && shared >= 0.8)) {
    return "current_step.objective only restates the goal; expected one concrete action: what to read, run, query or change first, and with which tools";
  }
  return undefined;
}

function namesNoAction(step: StepSpec): string | undefined {
  if (step.tools.length > 0) return undefined;
  if (contentWords(`${step.title} ${step.objective}`).some((word) => ACTION_VERBS.has(word))) return undefined;
  return "current_step names no action: it lists no tools and its objective says nothing to do; expected a verb (read, run, query, change, …) and the tools it needs";
}
