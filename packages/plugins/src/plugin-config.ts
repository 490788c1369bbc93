import { z } from "zod";

/** One entry of config `plugins`: a directory holding `plugin.json`. */
export const PluginEntry = z
  .object({
    /** The plugin's directory; relative to the config file. */
    path: z.string().min(1),
    /** @defaultValue true */
    enabled: z.boolean().default(true),
    /**
     * `first_use`: nothing starts until a run calls one of its tools.
     * `role_start`: a worker also starts it once when it starts (handshake and
     * ping, then stops it), so a broken plugin fails the worker's start, not a run.
     * @defaultValue "first_use"
     */
    start: z.enum(["first_use", "role_start"]).default("first_use"),
  })
  .strict();
export type PluginEntry = z.infer<typeof PluginEntry>;

export const PluginsConfig = z.array(PluginEntry).default([]);
