import { hash } from "node:crypto";

/**
 * A tool name every provider Rein speaks accepts: OpenAI's function names
 * are letters, digits, `_` and `-`, at most 64
 * (https://developers.openai.com/api/docs/guides/function-calling), and
 * Anthropic's match `^[a-zA-Z0-9_-]{1,128}$`
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools).
 */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const SUFFIX_LENGTH = 8;

/**
 * The names a request's tools go out under, and the way back. A name that
 * is already provider-safe is kept, so that a tool can never take the name
 * another tool was given; every other name becomes a safe name that no
 * kept name and no other renamed tool uses. The result depends only on the
 * set of names, so every call of a step sends the same names (prompt
 * caching keeps working).
 */
export class ProviderToolNames {
  /** Original → sent, for the tools whose name changed. */
  readonly renamed: ReadonlyMap<string, string>;
  private readonly originals: ReadonlyMap<string, string>;
  private readonly used: Set<string>;
  /** Names in the conversation that no tool has, each sent under a safe name of its own (never mapped back). */
  private readonly strays = new Map<string, string>();

  constructor(toolNames: Iterable<string>) {
    const names = [...new Set(toolNames)].sort();
    this.used = new Set(names.filter((name) => PROVIDER_TOOL_NAME.test(name)));
    const renamed = new Map<string, string>();
    const unsafe = names.filter((name) => !this.used.has(name));
    // Two unsafe names that clean up to the same name both get a hash, so neither depends on which one came first.
    const cleanedCount = new Map<string, number>();
    for (const name of unsafe) cleanedCount.set(cleaned(name), (cleanedCount.get(cleaned(name)) ?? 0) + 1);
    for (const name of unsafe) {
      const plain = cleaned(name);
      const sent = plain.length <= MAX_LENGTH && cleanedCount.get(plain) === 1 && !this.used.has(plain) ? plain : this.hashed(name, plain);
      this.used.add(sent);
      renamed.set(name, sent);
    }
    this.renamed = renamed;
    this.originals = new Map([...renamed].map(([original, sent]) => [sent, original]));
  }

  /** The name a tool, or a call in the conversation, goes out under. */
  sent(name: string): string {
    const renamed = this.renamed.get(name);
    if (renamed !== undefined) return renamed;
    if (PROVIDER_TOOL_NAME.test(name) && !this.originals.has(name)) return name;
    // A call to no tool of this request (refused earlier, or the tool is gone): safe, and never a name a tool has.
    let stray = this.strays.get(name);
    if (stray === undefined) {
      stray = this.hashed(name, cleaned(name));
      this.used.add(stray);
      this.strays.set(name, stray);
    }
    return stray;
  }

  /**
   * The tool a name the model wrote stands for. A name no tool was sent
   * under comes back as written: the runtime refuses it as an unknown tool.
   */
  original(name: string): string {
    return this.originals.get(name) ?? name;
  }

  /** `plain` cut to fit with a short hash of the original, salted until no name in use has it. */
  private hashed(original: string, plain: string): string {
    for (let salt = 0; ; salt += 1) {
      const suffix = hash("sha256", salt === 0 ? original : `${original}\u0000${salt}`, "hex").slice(0, SUFFIX_LENGTH);
      const candidate = `${plain.slice(0, MAX_LENGTH - SUFFIX_LENGTH - 1)}_${suffix}`;
      if (!this.used.has(candidate)) return candidate;
    }
  }
}

/** Every character a provider refuses as `_`; an empty name as `tool`. */
function cleaned(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
}
