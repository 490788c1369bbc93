import { z } from "zod";
import { EnvName } from "@rein/contracts";
import { hostPortProblem } from "../policy/host-port.ts";

/** A `host:port` the deployment names (`tools.hosts`, a secret's hosts); `*.example.com:443` covers subdomains. */
export const HostPortEntry = z.string().superRefine((entry, context) => {
  const problem = hostPortProblem(entry);
  if (problem) context.addIssue({ code: "custom", message: problem });
});

/**
 * One secret and where it may go. `tools` are tool names that may read it
 * through `context.secrets` (an MCP server gets it in its environment with
 * `mcp:<server>`); `hosts` are the `host:port` destinations `http_request`
 * may send it to. A secret named nowhere is still redacted everywhere.
 */
export const SecretBinding = z
  .object({
    env: EnvName,
    tools: z.array(z.string().min(1)).default([]),
    hosts: z.array(HostPortEntry).default([]),
  })
  .strict();
export type SecretBinding = z.infer<typeof SecretBinding>;

/**
 * Config `secrets[]`: a binding, or the older bare name, which now means
 * "redact this value, let no tool read it" (bound to nothing).
 */
export const SecretEntry = z.union([EnvName.transform((env): SecretBinding => ({ env, tools: [], hosts: [] })), SecretBinding]);
export type SecretEntryInput = z.input<typeof SecretEntry>;
