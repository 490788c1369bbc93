import { ReinError } from "@rein/contracts";
import type { ModelRequest } from "../model-provider.ts";
import { ScriptedTurn } from "./script.ts";

const PLACEHOLDER = /\{\{evidence:([A-Za-z0-9_.-]+)\}\}/g;
// Evidence lines as the planner and worker prompts render them: "- obs_…: <<<untrusted-data …>>><tool>: <summary>…".
const EVIDENCE_LINE = /^- (\S+): (?:<<<untrusted-data [a-p]+>>>)?([A-Za-z0-9_.-]+): /gm;

/**
 * A script is written before any run, but observation ids are random. A turn
 * may therefore say `{{evidence:<tool>}}` wherever an id belongs; it becomes
 * the id of the latest evidence line for that tool in the request itself
 * (system prompt and user messages), the list a real model would read the
 * id from. A placeholder with no such line is a script error.
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
  const texts = [request.system];
  for (const message of request.messages) {
    if (message.role !== "user") continue;
    for (const block of message.content) if (block.type === "text") texts.push(block.text);
  }
  const latest = new Map<string, string>();
  for (const text of texts) for (const [, id, tool] of text.matchAll(EVIDENCE_LINE)) if (id && tool) latest.set(tool, id);
  return latest;
}
