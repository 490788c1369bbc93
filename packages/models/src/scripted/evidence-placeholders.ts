import { ReinError } from "@rein/contracts";
import type { ModelRequest } from "../model-provider.ts";
import { ScriptedTurn } from "./script.ts";

const PLACEHOLDER = /\{\{evidence:([A-Za-z0-9_.-]+)\}\}/g;
// Evidence lines as the planner and worker prompts render them: "- obs_…: <<<untrusted-data …>>><tool>: <summary>…".
const EVIDENCE_LINE = /^- (\S+): (?:<<<untrusted-data [a-p]+>>>)?([A-Za-z0-9_.-]+): /gm;
// A tool result as the worker loop hands it back: "[observation obs_…]" first.
const OBSERVATION_HEAD = /^\[observation (\S+)\]/;

/**
 * A script is written before any run, but observation ids are random. A turn
 * may therefore say `{{evidence:<tool>}}` wherever an id belongs; it becomes
 * the id of the latest evidence for that tool in the request itself: an
 * evidence line of the system prompt or a user message, or the result of
 * the step's own call of it, where a real model would read the id from. A
 * placeholder with no such evidence is a script error.
 */
export function resolveEvidencePlaceholders(turn: ScriptedTurn, request: ModelRequest): ScriptedTurn {
  const serialized = JSON.stringify(turn);
  if (!serialized.includes("{{evidence:")) return turn;
  const latest = evidenceByTool(request);
  const resolved = serialized.replace(PLACEHOLDER, (_match, tool: string) => {
    const id = latest.get(tool);
    if (!id) {
      throw new ReinError(
        "config_invalid",
        `the ${request.role} script names {{evidence:${tool}}}, but the request lists no evidence from ${tool}; expected a line "- <id>: ${tool}: …"`,
      );
    }
    return id;
  });
  return ScriptedTurn.parse(JSON.parse(resolved));
}

function evidenceByTool(request: ModelRequest): Map<string, string> {
  const latest = new Map<string, string>();
  const fromLines = (text: string) => {
    for (const [, id, tool] of text.matchAll(EVIDENCE_LINE)) if (id && tool) latest.set(tool, id);
  };
  fromLines(request.system);
  const toolOfCall = new Map<string, string>();
  for (const message of request.messages) {
    for (const block of message.content) {
      if (block.type === "tool_call") toolOfCall.set(block.id, block.name);
      if (message.role !== "user") continue;
      if (block.type === "text") fromLines(block.text);
      // The step's own calls: each result is headed by its observation id, as the worker sees it.
      const observation = block.type === "tool_result" ? OBSERVATION_HEAD.exec(block.content)?.[1] : undefined;
      const tool = block.type === "tool_result" ? toolOfCall.get(block.toolCallId) : undefined;
      if (observation && tool) latest.set(tool, observation);
    }
  }
  return latest;
}
