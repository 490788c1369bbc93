import { z } from "zod";
import { compileGlob } from "@rein/guard";

/** A glob as the policy reads it (`compileGlob`), refused at load when it does not compile. */
const Glob = z
  .string()
  .min(1)
  .superRefine((pattern, context) => {
    try {
      compileGlob(pattern);
    } catch (error) {
      context.addIssue({ code: "custom", message: `expected a glob as policy rules take: ${(error as Error).message}` });
    }
  });

/**
 * A call the deployment declares safe to run twice (config `tools.repeatSafe`,
 * docs/effects.md): when a crash cut it off after its intent and before its
 * outcome, the step's next worker runs it again instead of reporting its
 * outcome unknown. At most once stays the default for everything else.
 * @example { "tool": "run_command", "command": "npm test*" }
 * @example { "tool": "my_read_script" }
 */
export const RepeatSafeRule = z
  .object({
    /** The tool's name, a glob (`mcp:ci__*`). */
    tool: Glob,
    /**
     * The command line, a glob over the call's `command` and `args` joined
     * by spaces (`run_command`); `*` stops at `/` as in paths. A rule with
     * a command covers only calls that name one.
     */
    command: Glob.optional(),
  })
  .strict();
export type RepeatSafeRule = z.infer<typeof RepeatSafeRule>;
