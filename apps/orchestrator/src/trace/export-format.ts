import { HashString, JsonObject } from "@rein/contracts";
import { RunState } from "@rein/contracts/run";
import { z } from "zod";

export const EXPORT_FORMAT = "rein.trace";

/** First line of an export: what run it is and the state needed to view it. */
export const ExportHeader = z.object({
  format: z.literal(EXPORT_FORMAT),
  formatVersion: z.literal(1),
  runId: z.string(),
  eventCount: z.number().int().nonnegative(),
  state: RunState.nullable(),
});
export type ExportHeader = z.infer<typeof ExportHeader>;

/** An event line whose payload was too large to inline carries this instead. */
export const PayloadRef = z.object({ $ref: HashString }).strict();

/** One line of the sidecar file that sits beside the JSONL. */
export const SidecarLine = z.discriminatedUnion("type", [
  z.object({ type: z.literal("payload"), id: HashString, payload: JsonObject }),
  z.object({ type: z.literal("blob"), id: z.string(), content: z.string() }),
  z.object({
    type: z.literal("artifact"),
    id: z.string(),
    runId: z.string(),
    content: z.string(),
    bytes: z.number().int().nonnegative(),
    tool: z.string().nullable(),
    mediaType: z.string(),
    createdAt: z.string(),
  }),
]);
export type SidecarLine = z.infer<typeof SidecarLine>;

/** Where the sidecar of `file.jsonl` lives. */
export const sidecarPathOf = (jsonlPath: string): string => `${jsonlPath.replace(/\.jsonl$/, "")}.artifacts.jsonl`;
