import { z } from "zod";
import { ToolEffect } from "@rein/contracts";
import { NetworkGrantEntry } from "@rein/sandbox/config";
import { McpArgumentScopes } from "./mcp-argument-scopes.ts";

export const McpToolOverride = z.object({
  effect: ToolEffect.optional(),
  approval: z.enum(["never", "always"]).optional(),
  timeoutMs: z.number().int().positive().optional(),
  /** Replaces the server's `maxTotalTimeoutMs` for this tool. */
  maxTotalTimeoutMs: z.number().int().positive().optional(),
  /** Which of this tool's arguments are paths and hosts; replaces the server's `scopes` for it. */
  scopes: McpArgumentScopes.optional(),
});
export type McpToolOverride = z.infer<typeof McpToolOverride>;

/** OAuth 2 client credentials: Rein gets its own access token from the token endpoint and renews it when refused. */
export const McpOAuthClientCredentials = z
  .object({
    /** The authorization server's token endpoint. */
    tokenUrl: z.url({ protocol: /^https?$/ }),
    clientId: z.string().min(1),
    /** The secret (config `secrets`, bound to `mcp:<name>`) holding the client secret; config names it, never holds its value. */
    clientSecret: z.string().min(1),
    /** The scope to ask for, space-separated. */
    scope: z.string().min(1).optional(),
  })
  .strict();
export type McpOAuthClientCredentials = z.infer<typeof McpOAuthClientCredentials>;

/** How Rein authenticates to a remote server: a static bearer token, or OAuth client credentials. */
export const McpRemoteAuth = z.union([
  z
    .object({
      /** The secret (config `secrets`, bound to `mcp:<name>`) sent as `Authorization: Bearer …`; config names it, never holds its value. */
      bearer: z.string().min(1),
    })
    .strict(),
  z.object({ oauth: McpOAuthClientCredentials }).strict(),
]);

/** A host directory shown to a stdio server: a path (read-only), or `{ path, writable }`. */
export const McpMount = z
  .union([z.string().min(1), z.object({ path: z.string().min(1), writable: z.boolean().default(false) }).strict()])
  .transform((mount) => (typeof mount === "string" ? { path: mount, writable: false } : mount));
export type McpMount = z.infer<typeof McpMount>;

/** One MCP server: a stdio child (`command`) or a remote server over Streamable HTTP (`url`). */
export const McpServerConfig = z
  .object({
    /** The prefix its tools get in the registry: `<name>__<tool>`. */
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,32}$/, "MCP server names are 1-32 letters, digits, _ or -"),
    command: z.string().min(1).optional(),
    /** A remote server's Streamable HTTP endpoint; its host must be granted (`hosts` in policy) for its tools to be called. */
    url: z.url({ protocol: /^https?$/ }).optional(),
    auth: McpRemoteAuth.optional(),
    args: z.array(z.string()).default([]),
    /** A stdio server's working directory: inside one of its `mounts` or the workspace root. */
    cwd: z.string().optional(),
    /**
     * Host directories a stdio server needs (its install directory, e.g. a
     * node_modules; `{ "path": …, "writable": true }` for its own state),
     * shown inside its sandbox at the same path, read-only unless marked
     * writable. Nothing else of the host is there but the system's
     * programs; the keys directory is hidden even inside a mount.
     * @defaultValue none
     */
    mounts: z.array(McpMount).default([]),
    /**
     * How a stdio server sees the workspace root (config `workspaceRoot`, every
     * run's workspace, at its host path): `read-only`, `read-write` or `none`.
     * @defaultValue "read-only"
     */
    workspace: z.enum(["read-only", "read-write", "none"]).default("read-only"),
    /** `host:port` pairs a stdio server may reach through the sandbox's proxy; nothing else. @defaultValue none */
    hosts: z.array(NetworkGrantEntry).default([]),
    /** Plain environment variables for the server (beside PATH, HOME and LANG the sandbox sets). */
    env: z.record(z.string(), z.string()).default({}),
    /** Environment variable → secret name; values come from config `secrets` bound to `mcp:<name>`, never from this entry. */
    secretEnv: z.record(z.string(), z.string()).default({}),
    /** The server's tools to register, by their own names; absent means all. */
    include: z.array(z.string()).optional(),
    /**
     * Whether the server's tool annotations (`readOnlyHint`, `idempotentHint`)
     * may lower a tool's effect below `external` and so skip approval. Without
     * it they are hints that can only make a tool stricter.
     * @defaultValue false
     */
    trustAnnotations: z.boolean().default(false),
    /**
     * Which arguments of the server's tools are paths and hosts (e.g.
     * `{ "paths": ["path", "paths[]"], "hosts": ["url"] }`), so path and host
     * rules apply to its calls as to built-ins. Without it a call's scope
     * names only the server (`services: mcp:<name>`).
     */
    scopes: McpArgumentScopes.optional(),
    /** Per-tool overrides, by the server's own tool name. Config wins over the server's annotations. */
    tools: z.record(z.string(), McpToolOverride).default({}),
    /**
     * How long a call may go without an answer or a progress notification:
     * each `notifications/progress` for the call starts it again.
     * @defaultValue 30_000
     */
    timeoutMs: z.number().int().positive().default(30_000),
    /**
     * The most a call may take in all, however much progress the server
     * reports; past it the call is cancelled (`notifications/cancelled`). A
     * `timeoutMs` above it wins.
     * @defaultValue 600_000
     */
    maxTotalTimeoutMs: z.number().int().positive().default(600_000),
    /**
     * Whether Rein may not start without this server. Otherwise a server that
     * fails to start is reported (command, exit code, stderr) and left out, and
     * goals granting its tools are refused at submit with that reason.
     * @defaultValue false
     */
    required: z.boolean().default(false),
  })
  .refine((server) => (server.command === undefined) !== (server.url === undefined), {
    message: "an MCP server has either a command (stdio) or a url (Streamable HTTP), exactly one",
  })
  .refine((server) => server.auth === undefined || server.url !== undefined, { message: "auth is for a remote server (url)" })
  .refine((server) => server.url === undefined || (server.mounts.length === 0 && server.hosts.length === 0), {
    message: "mounts and hosts are for a stdio server (command), which runs in the sandbox; a remote server's host is granted in policy",
  });
export type McpServerConfig = z.infer<typeof McpServerConfig>;
export type McpServerConfigInput = z.input<typeof McpServerConfig>;

export const McpConfig = z.array(McpServerConfig).default([]);
