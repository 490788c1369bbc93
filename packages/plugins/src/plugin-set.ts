import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ReinError } from "@rein/contracts";
import type { Logger, Redactor, SecretBindings } from "@rein/guard";
import type { Sandbox } from "@rein/sandbox";
import type { AnyTool, TraceSink } from "@rein/tools";
import { loadPlugin } from "./load-plugin.ts";
import type { PluginEntry } from "./plugin-config.ts";
import { PluginHost, type PluginStatus, type PluginSupervision } from "./plugin-host.ts";
import { PluginManifest } from "./plugin-manifest.ts";
import { pluginTools } from "./plugin-tools.ts";

export interface PluginSetOptions {
  sandbox: () => Promise<Sandbox>;
  /** Host directories no plugin may see, even inside its own directory: the keys directory (config `keysDir`). */
  hidden?: readonly string[];
  secrets: SecretBindings;
  logger: Logger;
  trace?: TraceSink;
  redactor?: Redactor;
  supervision?: PluginSupervision;
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
        if (owner)
          throw new ReinError(
            "config_invalid",
            `tool ${tool.name} is offered by plugin ${owner} and plugin ${plugin.manifest.name}; expected unique tool names`,
          );
        owners.set(tool.name, plugin.manifest.name);
      }
      if (entry.start === "role_start") await probeAtStart(host, entry);
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

/** Starts the plugin once in an empty workspace of its own (handshake and ping), so a broken one fails here, not in a run. */
async function probeAtStart(host: PluginHost, entry: PluginEntry): Promise<void> {
  const workspace = await mkdtemp(join(tmpdir(), "rein-plugin-probe-"));
  try {
    await host.probe(workspace);
  } catch (error) {
    throw new ReinError("config_invalid", `plugin ${host.name} (${entry.path}) failed its start check: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/**
 * The tool names config `plugins` offers, read from each enabled manifest
 * without starting anything (for a goal's grant); a manifest that does not
 * parse offers none here and fails when the plugins are loaded.
 */
export function pluginToolNames(entries: readonly PluginEntry[]): string[] {
  return entries
    .filter((entry) => entry.enabled)
    .flatMap((entry) => {
      try {
        const parsed = PluginManifest.safeParse(JSON.parse(readFileSync(join(resolve(entry.path), "plugin.json"), "utf8")));
        return parsed.success ? parsed.data.tools.map((tool) => tool.name) : [];
      } catch {
        return [];
      }
    });
}
