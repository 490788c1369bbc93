import type { LookupAddress } from "node:dns";
import type { SandboxLimitsInput, SandboxMode } from "@rein/sandbox";

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Every address a host name resolves to. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

/** Limits of the built-in tools; the lists usually come from config `tools`. */
export interface BuiltinToolOptions {
  /** Executables `run_command` may start, matched exactly (config `tools.commands`). @defaultValue none */
  commands?: readonly string[];
  /** `host:port`s `http_request` may reach; `*.example.com:443` covers subdomains (config `tools.hosts`). @defaultValue none */
  hosts?: readonly string[];
  /** @defaultValue ["GET", "HEAD"] */
  httpMethods?: readonly HttpMethod[];
  /** Largest file `read_file` and `search_files` read. @defaultValue 16 MiB */
  maxFileBytes?: number;
  /** Cap on each of stdout and stderr of `run_command`. @defaultValue 1 MiB */
  maxCommandOutputBytes?: number;
  /** Cap on an `http_request` response body. @defaultValue 5 MiB */
  maxResponseBytes?: number;
  /** @defaultValue 60_000 */
  commandTimeoutMs?: number;
  /** @defaultValue 30_000 */
  httpTimeoutMs?: number;
  /** Which boundary `run_command` runs programs in (config `sandbox`). @defaultValue "auto" */
  sandbox?: SandboxMode;
  /** CPU, memory, process and file-size limits inside the sandbox (config `sandboxLimits`). */
  sandboxLimits?: SandboxLimitsInput;
  /** The bubblewrap executable. @defaultValue "bwrap" on PATH */
  bwrapPath?: string;
  /** How `http_request` resolves a host name (tests answer for names of their own). @defaultValue dns.lookup, every address */
  lookup?: ResolveHost;
}

export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;
