import { z } from "zod";
import { ToolEffect, ReinError } from "@rein/contracts";
import type { AnyTool } from "./define-tool.ts";

/** A function of the type `Field` says; only that it is a function can be checked before it is called. */
const aFunction = <Field>() => z.custom<Field>((value) => typeof value === "function", "expected a function");
// A zod schema from the module's own copy of zod fails `instanceof`; what the executor calls on it is what is checked.
const aZodSchema = z.custom<z.ZodType>(
  (value) => typeof value === "object" && value !== null && "safeParse" in value && typeof value.safeParse === "function",
  "expected a zod schema",
);

/** What the executor relies on in a tool: the fields `defineTool` fills in. */
const ToolShape = z.looseObject({
  name: z.string().min(1, "expected the tool's name"),
  description: z.string(),
  effect: ToolEffect,
  input: aZodSchema,
  output: aZodSchema.optional(),
  approval: z.union([z.enum(["never", "always"]), aFunction<Extract<AnyTool["approval"], (...args: never[]) => unknown>>()]),
  idempotent: z.boolean(),
  concurrencySafe: z.boolean(),
  // A module built against an older defineTool has none: it enumerates nothing.
  enumerates: z.boolean().default(false),
  timeoutMs: z.number().positive(),
  scope: aFunction<AnyTool["scope"]>(),
  run: aFunction<AnyTool["run"]>(),
  render: aFunction<AnyTool["render"]>(),
});

const ToolsExport = z.object({ tools: z.array(ToolShape) });

/**
 * The `tools` a user's module exports (`--tools-module`, an example's
 * tools.ts), checked: an array of tool definitions made with `defineTool`.
 * Anything else is a `config_invalid` error naming the file and the field.
 */
export function toolsExportOf(module: unknown, file: string): AnyTool[] {
  const parsed = ToolsExport.safeParse(module);
  if (parsed.success) return parsed.data.tools;
  const issue = parsed.error.issues[0];
  const at = issue?.path.length
    ? issue.path
        .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
        .join("")
        .slice(1)
    : "(the module)";
  throw new ReinError(
    "config_invalid",
    `${file}: ${at}: ${issue?.message ?? "invalid"}; expected the module to export tools: an array of tool definitions made with defineTool`,
  );
}

/**
 * A tool a program hands to a registry, checked as a module's are: a
 * missing or unknown `effect` would leave the permission policy nothing to
 * decide by. The definition itself is kept, not a parsed copy.
 */
export function checkTool(tool: unknown): void {
  const parsed = ToolShape.safeParse(tool);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const name = typeof tool === "object" && tool !== null && "name" in tool ? String(tool.name) : "(unnamed)";
  throw new ReinError(
    "config_invalid",
    `tool ${name}: ${issue?.path.join(".") || "(the tool)"}: ${issue?.message ?? "invalid"}; expected a tool definition made with defineTool`,
  );
}
