import { ReinError } from "../errors.ts";
import type { AnyTool } from "./define-tool.ts";

/** Every tool installed in a process. A step sees only its packet's surface of it. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();

  constructor(tools: Iterable<AnyTool> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: AnyTool): this {
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
    if (taken.length > 0) throw new ReinError("config_invalid", `tools ${taken.join(", ")} are registered already; expected unique tool names`);
    for (const name of leaving) this.tools.delete(name);
    for (const tool of added) this.register(tool);
    return this;
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
