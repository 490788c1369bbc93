import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ReinError } from "@rein/contracts";
import { RunStatus } from "@rein/contracts/run";
import { z } from "zod";

/** What must be true of a finished case; every field present is one check. */
export const Expectations = z
  .object({
    status: RunStatus.optional(),
    answerContains: z.array(z.string()).optional(),
    /** A regular expression the answer must match. */
    answerMatches: z.string().optional(),
    maxSteps: z.number().int().nonnegative().optional(),
    maxTokens: z.number().int().nonnegative().optional(),
    toolsCalled: z.array(z.string()).optional(),
    toolsNotCalled: z.array(z.string()).optional(),
    /** Files in the run's workspace and text each must contain when the run ends. */
    fileContains: z.array(z.object({ path: z.string(), text: z.string() })).optional(),
  })
  .strict();
export type Expectations = z.infer<typeof Expectations>;

/**
 * Where a case's model outputs come from: the example's script, a recorded
 * trace export (relative to the suite), or the configured real providers.
 */
export const CaseModel = z.union([z.literal("scripted"), z.literal("config"), z.object({ recording: z.string() }).strict()]);
export type CaseModel = z.infer<typeof CaseModel>;

export const EvalCase = z
  .object({
    name: z.string().regex(/^[a-z0-9-]+$/, "case names are kebab-case"),
    example: z.string(),
    /** Fields that replace the example goal's (text, budget, ...); the result is validated as a Goal at submission. */
    goal: z.record(z.string(), z.unknown()).optional(),
    model: CaseModel.default("scripted"),
    /** How approvals the run asks for are decided; "none" leaves the run waiting, which ends the case. */
    approvals: z.enum(["approve", "deny", "none"]).default("none"),
    expect: Expectations,
  })
  .strict();
export type EvalCase = z.infer<typeof EvalCase>;

export const Tolerance = z
  .object({
    /** How far the pass rate may fall below the baseline's (0..1). @defaultValue 0 */
    passRateDrop: z.number().min(0).max(1).default(0),
    /** How much total cost may rise over the baseline's, in percent. @defaultValue 10 */
    costIncreasePct: z.number().nonnegative().default(10),
    /** How much total tokens may rise over the baseline's, in percent. @defaultValue 10 */
    tokenIncreasePct: z.number().nonnegative().default(10),
  })
  .strict();
export type Tolerance = z.infer<typeof Tolerance>;

export const EvalSuite = z
  .object({
    name: z.string(),
    tolerance: Tolerance.default({ passRateDrop: 0, costIncreasePct: 10, tokenIncreasePct: 10 }),
    cases: z.array(EvalCase).min(1),
  })
  .strict();
export type EvalSuite = z.infer<typeof EvalSuite>;

/** Reads `<dir>/suite.json`; recordings are resolved against the suite folder. */
export function loadSuite(dir: string): EvalSuite & { dir: string } {
  const file = join(dir, "suite.json");
  if (!existsSync(file)) throw new ReinError("not_found", `no eval suite at ${dir}; expected a folder with suite.json`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ReinError("config_invalid", `${file} is not valid JSON`, { cause: error });
  }
  const parsed = EvalSuite.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReinError("config_invalid", `${file}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`);
  }
  const suite = parsed.data;
  for (const item of suite.cases) if (typeof item.model === "object") item.model = { recording: resolve(dir, item.model.recording) };
  return { ...suite, dir: resolve(dir) };
}
