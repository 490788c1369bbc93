import { resolve } from "node:path";
import { ReinError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Redactor } from "../sanitize/redactor.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import type { SecretBindings } from "../secrets/secret-bindings.ts";
import type { AnyTool } from "../tools/define-tool.ts";
import type { TraceSink } from "../tools/executor/call-trace.ts";
import { loadPlugin } from "./load-plugin.ts";
import type { PluginEntry } from "./plugin-config.ts";
import { PluginHost, type PluginStatus, type PluginSupervision } from "./plugin-host.ts";
import { pluginTools } from "./plugin-tools.ts";

export interface PluginSetOptions {
  sandbox: () => Promise<Sandbox>;
  secrets: SecretBindings;
  logger: Logger;
  trace?: TraceSink;
  redactor?: Redactor;
  supervision?: PluginSupervision;
  /** For `start: role_start`: an empty directory each such plugin is probed in. */
  probeWorkspace?: string;
}

/** The enabled plugins of a Rein process: their tools for the registry, their status, and one `close`. */
export interface PluginSet {
  hosts: PluginHost[];
  tools: AnyTool[];
  status(): PluginStatus[];
  close(): Promise<void>;
}

/**
 * Loads every enabled entry of config `plugins`, refuses two plugins
 * offering one tool name, and probes those with `start: role_start`.
 */
export async function loadPlugins(entries: readonly PluginEntry[], options: PluginSetOptions): Promise<PluginSet> {
  const hosts: PluginHost[] = [];
  const close = async () => {
    await Promise.all(hosts.map((host) => host.close()));
  };
  try {
    const owners = new Map<string, string>();
    for (const entry of entries.filter((candidate) => candidate.enabled)) {
      const plugin = await loadPlugin(resolve(entry.path));
      const host = new PluginHost(plugin, options);
      hosts.push(host);
      for (const tool of plugin.manifest.tools) {
        const owner = owners.get(tool.name);
        if (owner) throw new ReinError("config_invalid", `tool ${tool.name} is offered by plugin ${owner} and plugin ${plugin.manifest.name}; expected unique tool names`);
        owners.set(tool.name, plugin.manifest.name);
      }
      if (entry.start === "role_start") {
        if (!options.probeWorkspace) throw new ReinError("config_invalid", `plugin ${plugin.manifest.name} starts at role start, but no workspace was given to probe it in`);
        await host.probe(options.probeWorkspace).catch((error: unknown) => {
          throw new ReinError("config_invalid", `plugin ${plugin.manifest.name} (${entry.path}) failed its start check: ${(error as Error).message}`, { cause: error });
        });
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    hosts,
    tools: hosts.flatMap((host) => pluginTools(host, { redactor: options.redactor })),
    status: () => hosts.map((host) => host.status()),
    close,
  };
}
