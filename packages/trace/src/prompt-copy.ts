import { z } from "zod";
import { canonicalJson, hashOf, type Sha256, sha256, HashString, ReinError } from "@rein/contracts";
import { ModelMessage, ModelToolSchema, StructuredOutputRequest } from "@rein/contracts/model";

/**
 * The stored copy of what a model saw, as references to content-addressed
 * blobs of the run: one per part, one per message. A long conversation
 * stores each message once, not once per turn, and each call names only the
 * messages new since the call before it (`after`): a trace grows by the same
 * few bytes per turn at turn 200 as at turn 2.
 */
export const PromptCopy = z.object({
  system: HashString,
  tools: HashString.nullable(),
  output: HashString.nullable(),
  /**
   * This call's messages continue the previous call of the same conversation:
   * the first `kept` messages of the prompt whose inputHash this is, then
   * `messages`. Absent: `messages` is the whole list.
   */
  after: z.object({ inputHash: HashString, kept: z.number().int().nonnegative() }).optional(),
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

// A conversation's messages are the same objects turn after turn: each is
// serialized and hashed once, and its blob sent to Redis once, so the cost of
// a model call does not grow with the history before it.
// An object shared across runs (a constant schema) is stored once per run.
const seen = new WeakMap<object, { id: Sha256; json: string; storedIn: Set<string> }>();

/** A call's messages and their ids, which the next call of the conversation repeats object for object. */
export interface KnownMessages {
  messages: readonly object[];
  ids: readonly Sha256[];
}

/**
 * Splits a request into blobs (id → canonical JSON) and the copy that
 * references them. Blobs already stored from an earlier call are left out.
 * With `known` (the call before, see PromptChain), the messages it shares
 * with this one, object for object, are named by their ids without a lookup:
 * at turn 200 that is 400 messages a call.
 */
export function splitPrompt(
  request: PromptParts,
  runId = "",
  known?: KnownMessages,
): { copy: PromptCopy; blobs: Map<string, string>; markStored(): void } {
  const blobs = new Map<string, string>();
  const fresh: { storedIn: Set<string> }[] = [];
  const put = (value: unknown): Sha256 => {
    const memo = typeof value === "object" && value !== null ? seen.get(value) : undefined;
    if (memo) {
      if (!memo.storedIn.has(runId)) {
        blobs.set(memo.id, memo.json);
        fresh.push(memo);
      }
      return memo.id;
    }
    const json = canonicalJson(value);
    const entry = { id: sha256(json), json, storedIn: new Set<string>() };
    if (typeof value === "object" && value !== null) seen.set(value, entry);
    blobs.set(entry.id, json);
    fresh.push(entry);
    return entry.id;
  };
  const copy: PromptCopy = {
    system: put(request.system),
    tools: request.tools === undefined ? null : put(request.tools),
    output: request.output === undefined ? null : put(request.output),
    messages: messageIds(request.messages, put, known),
  };
  return {
    copy,
    blobs,
    markStored: () => {
      for (const entry of fresh) entry.storedIn.add(runId);
    },
  };
}

function messageIds(messages: readonly ModelMessage[], put: (value: unknown) => Sha256, known: KnownMessages | undefined): Sha256[] {
  if (!known) return messages.map(put);
  let shared = 0;
  while (shared < known.messages.length && shared < messages.length && messages[shared] === known.messages[shared]) shared += 1;
  const ids = known.ids.slice(0, shared);
  for (let index = shared; index < messages.length; index += 1) ids.push(put(messages[index]));
  return ids;
}

/**
 * The model calls of one conversation (a worker step), each linked to the one
 * before: `link` turns a call's whole copy into one that names only what is
 * new since the previous call. Its inputHash covers the predecessor's, so it
 * still identifies the whole prompt.
 */
export class PromptChain {
  private last: { inputHash: Sha256; messages: readonly Sha256[] } | undefined;
  private lastObjects: KnownMessages | undefined;

  /** The last call's messages as objects, with their ids (splitPrompt's `known`). */
  get known(): KnownMessages | undefined {
    return this.lastObjects;
  }

  /** `objects`: the call's messages as sent, so the next call can name the ones it repeats without a lookup. */
  link(whole: PromptCopy, objects?: readonly object[]): PromptCopy {
    const messages = whole.messages as Sha256[];
    this.lastObjects = objects ? { messages: objects, ids: messages } : undefined;
    const last = this.last;
    let kept = 0;
    if (last) while (kept < last.messages.length && kept < messages.length && last.messages[kept] === messages[kept]) kept += 1;
    const copy: PromptCopy =
      last && kept > 0 ? { ...whole, after: { inputHash: last.inputHash, kept }, messages: messages.slice(kept) } : whole;
    this.last = { inputHash: promptHash(copy), messages };
    return copy;
  }
}

/**
 * The whole form of a copy (every message named, no `after`), given the
 * message lists of the calls before it by inputHash; undefined when its
 * predecessor is not among them. Record each call's result under its
 * inputHash to expand the next.
 */
export function expandPromptCopy(copy: PromptCopy, earlier: ReadonlyMap<string, readonly string[]>): PromptCopy | undefined {
  if (!copy.after) return copy;
  const before = earlier.get(copy.after.inputHash);
  if (!before || before.length < copy.after.kept) return undefined;
  const { after: _after, ...rest } = copy;
  return { ...rest, messages: [...before.slice(0, copy.after.kept), ...copy.messages] };
}

/**
 * The input hash of a model call: the hash of its prompt copy, which names
 * every part by its own hash. It identifies the input as surely as hashing
 * the whole request, and costs the same at turn 200 as at turn 2.
 */
export const promptHash = (copy: PromptCopy): Sha256 => hashOf(copy);

// Read back from a trace (replay, export, --check), never on the model call's path: the writer stores what it was given.
const SystemBlob = z.string();
const ToolsBlob = z.array(ModelToolSchema);

/**
 * Rebuilds the prompt from its whole copy (see expandPromptCopy). Returns
 * undefined when a blob is missing (expired or never stored); a blob that is
 * not the part its copy names it as is a `contract_invalid` error.
 */
export function assemblePrompt(copy: PromptCopy, blobs: Readonly<Record<string, string>>): PromptParts | undefined {
  if (copy.after) return undefined;
  const parts = [copy.system, ...copy.messages, copy.tools, copy.output].filter((id): id is `sha256:${string}` => id !== null);
  if (parts.some((id) => blobs[id] === undefined)) return undefined;
  const take = <Part>(id: string, schema: z.ZodType<Part>, what: string): Part => {
    let json: unknown;
    try {
      json = JSON.parse(blobs[id] ?? "");
    } catch {
      throw new ReinError("contract_invalid", `prompt blob ${id} is not JSON; expected ${what}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new ReinError("contract_invalid", `prompt blob ${id} is not ${what}: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  };
  return {
    system: take(copy.system, SystemBlob, "the system prompt (a string)"),
    messages: copy.messages.map((id) => take(id, ModelMessage, "a model message")),
    ...(copy.tools ? { tools: take(copy.tools, ToolsBlob, "the list of tools offered") } : {}),
    ...(copy.output ? { output: take(copy.output, StructuredOutputRequest, "a structured-output request") } : {}),
  };
}

/** Where prompt blobs go: the part of a TraceWriter this needs (a TraceLog, or a TraceBuffer in front of one). */
export interface PromptBlobWriter {
  putBlobs(runId: string, blobs: ReadonlyMap<string, string>): Promise<void>;
}

/**
 * Stores the prompt's blobs in the run's trace and returns the copy for
 * `model.called`, linked to the previous call when `chain` is given.
 */
export async function storePromptCopy(
  trace: PromptBlobWriter,
  runId: string,
  request: PromptParts,
  chain?: PromptChain,
): Promise<PromptCopy> {
  const { copy, blobs, markStored } = splitPrompt(request, runId, chain?.known);
  await trace.putBlobs(runId, blobs);
  markStored();
  return chain ? chain.link(copy, request.messages) : copy;
}
