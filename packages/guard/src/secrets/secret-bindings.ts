import { ReinError } from "@rein/contracts";
import { hostMatches } from "../policy/resource-match.ts";
import { secretEncodings } from "../sanitize/redactor.ts";
import type { SecretBinding } from "./secret-binding.ts";

/**
 * A tool's view of the deployment's secrets (config `secrets`): only those
 * bound to it. Values never reach the model, the trace or the logs.
 */
export interface SecretReader {
  /**
   * The value of a secret bound to this tool; undefined for a name the
   * deployment does not configure. A configured secret bound elsewhere is
   * refused: it throws a `tool_refused` ReinError and is traced.
   */
  get(name: string): string | undefined;
  /** Every secret bound to this tool as environment variables (name → value), e.g. for a process the tool starts. */
  bound(): Readonly<Record<string, string>>;
  /**
   * Throws a `tool_refused` ReinError when any of `parts` carries a secret
   * not bound to this tool and to `destination` (`host:port`). A tool that
   * sends data out calls it on everything it is about to send.
   */
  assertMaySend(destination: string, parts: readonly string[]): void;
}

/** Why a secret was kept from a tool; the executor traces each as `secret.refused`. */
export interface SecretRefusal {
  secret: string;
  tool: string;
  reason: "not_bound_to_tool" | "not_bound_to_host";
  destination?: string;
}

interface Loaded extends SecretBinding {
  value: string;
}

/**
 * The deployment's secrets (config `secrets`) with their values from the
 * environment and what each is bound to. Tools never get this object: each
 * call gets `readerFor(tool)`, which hands out only what is bound to that
 * tool and checks what leaves for a host.
 */
export class SecretBindings {
  private constructor(private readonly secrets: ReadonlyMap<string, Loaded>) {}

  static fromEnv(bindings: readonly SecretBinding[], env: NodeJS.ProcessEnv = process.env): SecretBindings {
    const secrets = new Map<string, Loaded>();
    for (const binding of bindings) {
      const value = env[binding.env];
      if (value) secrets.set(binding.env, { ...binding, value });
    }
    return new SecretBindings(secrets);
  }

  static none(): SecretBindings {
    return new SecretBindings(new Map());
  }

  /**
   * These bindings narrowed to the secrets `names` lists: what a principal
   * allowed only those is handed (an acceptance check gets the ones its
   * goal's grant names in `checkSecrets`, and no other).
   */
  only(names: readonly string[]): SecretBindings {
    return new SecretBindings(new Map([...this.secrets].filter(([name]) => names.includes(name))));
  }

  /** Names of the secrets that have a value, sorted. */
  names(): string[] {
    return [...this.secrets.keys()].sort();
  }

  /** Every value, bound or not, for the Redactor. */
  values(): string[] {
    return [...this.secrets.values()].map((secret) => secret.value);
  }

  /**
   * The secrets bound to `tool` as environment variables (name → value):
   * what a sandboxed process started for that tool may see, and, with
   * `mcp:<server>`, what an MCP server is started with.
   */
  boundTo(tool: string): Record<string, string> {
    const bound: Record<string, string> = {};
    for (const secret of this.secrets.values()) if (secret.tools.includes(tool)) bound[secret.env] = secret.value;
    return bound;
  }

  /**
   * The `context.secrets` of one call of `tool`. Asking for a configured
   * secret not bound to the tool, or sending one to a host it is not bound
   * to, throws a `tool_refused` ReinError and reports the refusal.
   */
  readerFor(tool: string, onRefused: (refusal: SecretRefusal) => void = () => {}): SecretReader {
    const refuse = (refusal: SecretRefusal, message: string): never => {
      onRefused(refusal);
      throw new ReinError("tool_refused", message, { details: { refusal } });
    };
    return {
      get: (name) => {
        const secret = this.secrets.get(name);
        if (!secret) return undefined;
        if (!secret.tools.includes(tool)) {
          refuse(
            { secret: name, tool, reason: "not_bound_to_tool" },
            `secret ${name} is not bound to ${tool}, so it was not handed out; a deployment binds it in config secrets: { "env": "${name}", "tools": ["${tool}"] }`,
          );
        }
        return secret.value;
      },
      bound: () => this.boundTo(tool),
      assertMaySend: (destination, parts) => {
        for (const secret of this.secrets.values()) {
          if (!carries(parts, secret.value)) continue;
          if (!secret.tools.includes(tool)) {
            refuse(
              { secret: secret.env, tool, reason: "not_bound_to_tool", destination },
              `the request carries secret ${secret.env}, which is not bound to ${tool}; nothing was sent`,
            );
          }
          if (!secret.hosts.some((pattern) => hostMatches(pattern, destination))) {
            refuse(
              { secret: secret.env, tool, reason: "not_bound_to_host", destination },
              `secret ${secret.env} may not be sent to ${destination}; it is bound to ${secret.hosts.join(", ") || "no host"}; nothing was sent`,
            );
          }
        }
      },
    };
  }
}

/** Whether any part carries the value as is or in a common encoding (URL, JSON, base64, hex). */
function carries(parts: readonly string[], value: string): boolean {
  const forms = [...secretEncodings(value), Buffer.from(value).toString("hex")];
  return parts.some((part) => forms.some((form) => part.includes(form)));
}
