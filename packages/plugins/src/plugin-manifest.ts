import { z } from "zod";
import { ToolEffect, EnvName } from "@rein/contracts";
import { NetworkGrantEntry } from "@rein/sandbox";

/** One tool a plugin offers. */
export const PluginTool = z
  .object({
    /** The tool's name in Rein's registry, as goals grant it. */
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/, "expected a tool name of lower-case letters, digits and _ (1-64), starting with a letter"),
    /** What it does and its side effects; the model reads it. */
    description: z.string().min(1).max(2_000),
    /** A JSON Schema (type object) the arguments must match. */
    input_schema: z
      .record(z.string(), z.unknown())
      .refine((schema) => schema.type === "object", 'expected a JSON Schema with "type": "object"'),
    /** A JSON Schema the result's `output` must match; a result that breaks it is never shown to the model. */
    output_schema: z.record(z.string(), z.unknown()).optional(),
    effect: ToolEffect,
    /** The call's deadline: past it, the plugin's process tree is killed. @defaultValue 30_000 */
    timeout_ms: z.number().int().min(10).max(600_000).default(30_000),
    /** Whether calling twice with the same arguments is harmless. @defaultValue true for `read`, else false */
    idempotent: z.boolean().optional(),
    /** `always`: every call waits for a person's approval, whatever the policy says. @defaultValue "never" */
    approval: z.enum(["never", "always"]).default("never"),
    /**
     * Which arguments name the resources a call touches, for grants and policy:
     * scope dimension → the name of a top-level string (or string array) argument,
     * e.g. `{ "services": "service", "paths": "path" }`.
     * @defaultValue services: plugin:<name>
     */
    scope: z
      .object({ paths: z.string().min(1).optional(), hosts: z.string().min(1).optional(), services: z.string().min(1).optional() })
      .strict()
      .optional(),
    /** Arguments `rein plugins check` calls the tool with. */
    example: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type PluginTool = z.infer<typeof PluginTool>;

/** `plugin.json`: what a plugin is, how to start it and what it may reach. Specified in docs/plugins.md. */
export const PluginManifest = z
  .object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,31}$/, "expected a plugin name of lower-case letters, digits and - (1-32), starting with a letter"),
    version: z.string().min(1).max(64),
    protocol: z.literal(1, { error: "expected protocol 1, the only version of the plugin wire" }),
    description: z.string().max(2_000).optional(),
    /** The program and its arguments, run from the plugin's directory; never through a shell. */
    command: z.array(z.string().min(1)).min(1, 'expected at least the program, e.g. ["python3", "plugin.py"]'),
    tools: z.array(PluginTool).min(1, "expected at least one tool"),
    /** Names of the secrets the plugin may receive as environment variables (each must also be bound to `plugin:<name>` in config). */
    env: z.array(EnvName).default([]),
    /** `host:port` pairs the plugin may reach through the sandbox's proxy; nothing else. */
    hosts: z.array(NetworkGrantEntry).default([]),
    /** @defaultValue "persistent" */
    mode: z.enum(["persistent", "per_call"]).default("persistent"),
    /** Calls the plugin takes at once (per_call: processes at once). @defaultValue 1 */
    concurrency: z.number().int().min(1).max(64).default(1),
    /** Calls that wait for a free slot before more are refused. @defaultValue 16 */
    queue_limit: z.number().int().min(0).max(1_000).default(16),
    /** Start plus handshake. @defaultValue 10_000 */
    start_timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
  })
  .strict()
  .superRefine((manifest, context) => {
    const seen = new Set<string>();
    manifest.tools.forEach((tool, index) => {
      if (seen.has(tool.name))
        context.addIssue({ code: "custom", path: ["tools", index, "name"], message: `tool ${tool.name} is declared twice` });
      seen.add(tool.name);
    });
  });
export type PluginManifest = z.infer<typeof PluginManifest>;
