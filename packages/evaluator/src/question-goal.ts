const QUESTION_OPENERS = /^\s*(why|what|how|which|who|whom|whose|when|where|whether|is|are|was|were|does|do|did|can|could|should|has|have)\b/i;

/**
 * Whether a goal asks a question (rather than asking for a change): it has a
 * question mark, or opens with a question word. Such a goal may be answered
 * with an explicit gap ("could not establish …") when no claim can be backed.
 */
export function asksQuestion(goal: string): boolean {
  return goal.includes("?") || QUESTION_OPENERS.test(goal);
}
