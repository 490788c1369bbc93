import { z } from "zod";
import { canonicalJson, sha256 } from "../canonical/canonical-json.ts";
import { HashString } from "../contracts/common.ts";
import type { ModelMessage, ModelToolSchema, StructuredOutputRequest } from "../models/model-provider.ts";
import type { TraceLog } from "./trace-log.ts";

/**
 * The stored copy of what a model saw, as references to content-addressed
 * blobs of the run: one per part, one per message. A long conversation
 * stores each message once, not once per turn.
 */
export const PromptCopy = z.object({
  system: HashString,
  tools: HashString.nullable(),
  output: HashString.nullable(),
  messages: z.array(HashString),
});
export type PromptCopy = z.infer<typeof PromptCopy>;

/** The parts of a request that `model.called`'s inputHash covers. */
export interface PromptParts {
  system: string;
  messages: ModelMessage[];
  tools?: ModelToolSchema[];
  output?: StructuredOutputRequest;
}

/** Splits a request into blobs (id → canonical JSON) and the copy that references them. */
export function splitPrompt(request: PromptParts): { copy: PromptCopy; blobs: Map<string, string> } {
  const blobs = new Map<string, string>();
  const put = (value: unknown): `sha256:${string}` => {
    const json = canonicalJson(value);
    const id = sha256(json);
    blobs.set(id, json);
    return id;
  };
  const copy: PromptCopy = {
    system: put(request.system),
    tools: request.tools === undefined ? null : put(request.tools),
    output: request.output === undefined ? null : put(request.output),
    messages: request.messages.map(put),
  };
  return { copy, blobs };
}

/**
 * Rebuilds the prompt from its copy; `hashOf(assemblePrompt(...))` equals the
 * `inputHash` of the model.called event that holds the copy. Returns
 * undefined when a blob is missing (expired or never stored).
 */
export function assemblePrompt(copy: PromptCopy, blobs: Readonly<Record<string, string>>): PromptParts | undefined {
  const take = (id: string): unknown => JSON.parse(blobs[id] as string);
  const parts = [copy.system, ...copy.messages, copy.tools, copy.output].filter((id): id is `sha256:${string}` => id !== null);
  if (parts.some((id) => blobs[id] === undefined)) return undefined;
  return {
    system: take(copy.system) as string,
    messages: copy.messages.map((id) => take(id) as ModelMessage),
    ...(copy.tools ? { tools: take(copy.tools) as ModelToolSchema[] } : {}),
    ...(copy.output ? { output: take(copy.output) as StructuredOutputRequest } : {}),
  };
}

/** Stores the prompt's blobs in the run's trace and returns the copy for `model.called`. */
export async function storePromptCopy(trace: Pick<TraceLog, "putBlobs">, runId: string, request: PromptParts): Promise<PromptCopy> {
  const { copy, blobs } = splitPrompt(request);
  await trace.putBlobs(runId, blobs);
  return copy;
}
