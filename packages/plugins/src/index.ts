// Out-of-process tool plugins as a tool source (docs/plugins.md): a plugin.json manifest and
// JSON lines over stdin/stdout, each process in the sandbox under the supervisor.
export { PluginEntry, PluginsConfig } from "./plugin-config.ts";
export { type LoadedPlugin, loadPlugin } from "./load-plugin.ts";
export { PluginHost, type PluginHostOptions, type PluginStatus } from "./plugin-host.ts";
export { loadPlugins, type PluginSet, type PluginSetOptions, pluginToolNames } from "./plugin-set.ts";
export { pluginTools } from "./plugin-tools.ts";
