import { ReinError } from "@rein/contracts";
import type { AnyTool } from "./define-tool.ts";
import { checkTool } from "./tools-export.ts";

/** Every tool installed in a process. A step sees only its packet's surface of it. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  /** By source (an MCP server), the tools it has that are not offered, and why. */
  private readonly withheld = new Map<string, Map<string, string>>();

  constructor(tools: Iterable<AnyTool> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: AnyTool): this {
    checkTool(tool);
    if (this.tools.has(tool.name)) {
      throw new ReinError("config_invalid", `tool ${tool.name} is registered twice; expected unique tool names`);
    }
    this.tools.set(tool.name, tool);
    return this;
  }

  /**
   * Swaps the tools named `removed` for `added` (an MCP server's new list),
   * all or nothing: later lookups see only the new ones. A name another
   * source already holds is refused and nothing changes.
   */
  replace(removed: readonly string[], added: readonly AnyTool[]): this {
    const leaving = new Set(removed);
    const taken = added.filter((tool) => this.tools.has(tool.name) && !leaving.has(tool.name)).map((tool) => tool.name);
    if (taken.length > 0)
      throw new ReinError("config_invalid", `tools ${taken.join(", ")} are registered already; expected unique tool names`);
    for (const name of leaving) this.tools.delete(name);
    for (const tool of added) this.register(tool);
    return this;
  }

  /**
   * Records the tools a source has and Rein does not offer (an MCP tool that
   * must run as a task), replacing what that source said before, so a step
   * granting one can be told why it is missing.
   */
  withhold(source: string, tools: ReadonlyArray<{ name: string; reason: string }>): this {
    this.withheld.set(source, new Map(tools.map(({ name, reason }) => [name, reason])));
    return this;
  }

  /** Why a tool is not offered, when a source withheld it. */
  whyWithheld(name: string): string | undefined {
    for (const tools of this.withheld.values()) {
      const reason = tools.get(name);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }

  get(name: string): AnyTool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  names(): string[] {
    return [...this.tools.keys()].sort();
  }

  list(): AnyTool[] {
    return this.names().map((name) => this.tools.get(name) as AnyTool);
  }
}
