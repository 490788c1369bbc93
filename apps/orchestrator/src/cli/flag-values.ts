import { ReinError } from "@rein/contracts";
import { z } from "zod";
import { type CommandSpec, type FlagSpec, GLOBAL_FLAGS, type ParsedFlags } from "./command-spec.ts";

/** What `parseArgs` gives for one flag: text, a switch, or several of either. */
type RawValue = string | boolean | (string | boolean)[] | undefined;

/**
 * A command line's flag values checked against the command's declaration:
 * whole numbers within their bounds, choices among theirs. A bad value is a
 * `config_invalid` error naming the flag, the value and what was expected.
 */
export function flagValuesOf<Spec extends CommandSpec>(spec: Spec, raw: Readonly<Record<string, RawValue>>): ParsedFlags<Spec> {
  const declared: Record<string, FlagSpec> = { ...spec.flags, ...GLOBAL_FLAGS };
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const flag = declared[name];
    if (value === undefined || !flag) continue;
    const parsed = schemaOf(flag).safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue?.path[0];
      const shown = Array.isArray(value) && typeof at === "number" ? value[at] : value;
      throw new ReinError("config_invalid", `--${name} ${String(shown)}: ${issue?.message ?? "invalid"}`);
    }
    values[name] = parsed.data;
  }
  // Each value was parsed by the schema its own declaration gives, which is what ParsedFlags<Spec> says of it.
  return values as ParsedFlags<Spec>;
}

function schemaOf(flag: FlagSpec): z.ZodType {
  switch (flag.kind) {
    case "boolean":
      return z.boolean();
    case "string":
      return flag.multiple ? z.array(z.string()) : z.string();
    case "integer": {
      const bounds = flag.max === undefined ? `at least ${flag.min}` : `from ${flag.min} to ${flag.max}`;
      const message = `expected a whole number ${bounds}`;
      return z
        .string()
        .regex(/^\d+$/, message)
        .transform(Number)
        .pipe(
          z
            .number()
            .int()
            .min(flag.min, message)
            .max(flag.max ?? Number.MAX_SAFE_INTEGER, message),
        );
    }
    case "choice": {
      const choice = z.string().refine((value) => flag.choices.includes(value), `expected one of ${flag.choices.join(", ")}`);
      return flag.multiple ? z.array(choice) : choice;
    }
  }
}
