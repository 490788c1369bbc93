import { RE2JS } from "re2js";

/** Longest `output_matches` pattern compiled; a check's pattern is a line, and RE2's compile cost grows with it. */
export const MAX_CHECK_PATTERN_CHARS = 2_000;

export type CheckPattern = { ok: true; test: (text: string) => boolean } | { ok: false; problem: string };

/**
 * A planner-written `output_matches` pattern, compiled for RE2 (re2js, a
 * port of RE2/J): matching runs in time linear in the text, whatever the
 * pattern, so a pattern such as `^(a+)+$` cannot freeze the evaluator.
 * What RE2 cannot express (backreferences, lookaround) is refused with
 * the reason, never run by a backtracking engine.
 */
export function compileCheckPattern(pattern: string): CheckPattern {
  if (pattern.length > MAX_CHECK_PATTERN_CHARS) {
    return { ok: false, problem: `the pattern is ${pattern.length} characters long; expected at most ${MAX_CHECK_PATTERN_CHARS}` };
  }
  try {
    const compiled = RE2JS.compile(pattern);
    return { ok: true, test: (text) => compiled.test(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      problem: `${reason}; expected an RE2 pattern (the syntax of JavaScript regular expressions without backreferences or lookaround), which is matched in linear time`,
    };
  }
}
