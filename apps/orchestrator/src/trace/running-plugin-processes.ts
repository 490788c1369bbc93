import type { TypedTraceEvent } from "@rein/trace";

/** A plugin process by its plugin and pid. */
export interface PluginProcess {
  plugin: string;
  pid?: number;
}

/**
 * The plugin processes a run's trace saw start and not exit, in the order
 * they started. Each will still add a `plugin.process_exited` event: an
 * idle one stops up to a minute after its last call, which may be after the
 * run ended.
 */
export function runningPluginProcesses(events: readonly TypedTraceEvent[]): PluginProcess[] {
  const running = new Map<string, PluginProcess>();
  const keyOf = (process: PluginProcess) => `${process.plugin}:${process.pid ?? "?"}`;
  for (const event of events) {
    if (event.kind === "plugin.process_started")
      running.set(keyOf(event.payload), { plugin: event.payload.plugin, pid: event.payload.pid });
    if (event.kind === "plugin.process_exited") running.delete(keyOf(event.payload));
  }
  return [...running.values()];
}
