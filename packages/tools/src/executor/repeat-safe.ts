import { compileGlob } from "@rein/guard";
import type { CallIntent } from "@rein/contracts/calls";

/** Config `tools.repeatSafe`, as the executor reads it (the schema is the runtime's config piece). */
export interface RepeatSafeRule {
  /** A glob over the tool's name. */
  tool: string;
  /** A glob over the call's command line: its `command` and `args` joined by spaces. */
  command?: string;
}

/**
 * The index of the first rule that declares the interrupted call safe to run
 * again, judged by what its intent recorded (tool and arguments), or
 * undefined. A command rule needs the arguments: an intent whose arguments
 * were too large to keep is covered only by a rule without one.
 */
export function repeatSafeRuleOf(rules: readonly RepeatSafeRule[], intent: Pick<CallIntent, "tool" | "args">): number | undefined {
  const index = rules.findIndex((rule) => {
    if (!compileGlob(rule.tool)(intent.tool)) return false;
    if (rule.command === undefined) return true;
    const line = commandLineOf(intent.args);
    return line !== undefined && compileGlob(rule.command)(line);
  });
  return index === -1 ? undefined : index;
}

/** `npm test -- --run`, from `{ command: "npm", args: ["test", "--", "--run"] }`. */
function commandLineOf(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null || !("command" in args) || typeof args.command !== "string") return undefined;
  const rest = "args" in args && Array.isArray(args.args) ? args.args : [];
  if (!rest.every((arg): arg is string => typeof arg === "string")) return undefined;
  return [args.command, ...rest].join(" ");
}
