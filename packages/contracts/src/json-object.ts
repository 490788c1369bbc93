import { z } from "zod";

/** A JSON object whose members are not described further (trace payloads, tool input). */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;
