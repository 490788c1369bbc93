export { compileJsonSchema, type SchemaCheck, type SchemaIssue } from "./json-schema-check.ts";
export { type LoadedPlugin, loadPlugin } from "./load-plugin.ts";
export { PluginEntry, PluginsConfig } from "./plugin-config.ts";
export { PluginHost, type PluginCallSite, type PluginHostOptions, type PluginStatus, type PluginSupervision } from "./plugin-host.ts";
export { PluginManifest, PluginTool } from "./plugin-manifest.ts";
export { loadPlugins, type PluginSet, type PluginSetOptions, pluginToolNames } from "./plugin-set.ts";
export { openPluginSession, type PluginSessionOptions, SANDBOX_PLUGIN_DIR } from "./plugin-session.ts";
export { pluginTools } from "./plugin-tools.ts";
export { PLUGIN_PROTOCOL, type PluginCall, PluginMessage, type PluginResult } from "./plugin-wire.ts";
