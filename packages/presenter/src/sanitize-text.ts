import { stripControlCharacters } from "@rein/guard";
import { eachMatch } from "./each-match.ts";
import { fold, originalSpan } from "./fold.ts";
import { FENCE_MARKER, SUSPICIOUS_PATTERNS } from "./suspicious-patterns.ts";

export interface SanitizedText {
  text: string;
  /** What was found, e.g. `instruction_like`, `role_marker`, `control_chars_removed`. */
  flags: string[];
}

interface Span {
  from: number;
  to: number;
  label: string;
}

/**
 * Makes tool or external text safe to show a model as data: control and
 * invisible characters go; text that imitates another role, a chat-template
 * token, the runtime's tags, an approval or the fence marker is rewritten
 * to a visible `[neutralized: …]` note; instructions aimed at the model are
 * kept verbatim (they may be the data the step is about) and flagged.
 * Matching runs on a folded copy, so case, fullwidth forms, look-alike
 * letters and letter-spacing do not hide a pattern.
 */
export function sanitizeText(input: string): SanitizedText {
  const flags = new Set<string>();
  const stripped = stripControlCharacters(input);
  if (stripped.controlRemoved > 0) flags.add("control_chars_removed");
  if (stripped.invisibleRemoved > 0) flags.add("invisible_chars_removed");
  const text = stripped.text;
  const folded = fold(text);

  const spans: Span[] = [];
  for (const { flag, label, action, pattern } of SUSPICIOUS_PATTERNS) {
    for (const match of eachMatch(pattern, folded.text)) {
      flags.add(flag);
      if (action !== "neutralize") continue;
      const [from, to] = originalSpan(folded, match.index, match.index + match[0].length);
      spans.push({ from, to, label });
    }
  }
  for (const match of eachMatch(FENCE_MARKER, folded.text)) {
    flags.add("fence_marker");
    const [from, to] = originalSpan(folded, match.index, match.index + match[0].length);
    spans.push({ from, to, label: "fence marker" });
  }
  return { text: rewrite(text, spans), flags: [...flags].sort() };
}

/** Replaces spans (merging overlaps) from the end, so earlier offsets stay valid. */
function rewrite(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  const ordered = [...spans].sort((a, b) => a.from - b.from);
  const merged: Span[] = [];
  for (const span of ordered) {
    const last = merged.at(-1);
    if (last && span.from < last.to) {
      last.to = Math.max(last.to, span.to);
    } else {
      merged.push({ ...span });
    }
  }
  let result = text;
  for (const span of merged.reverse()) {
    const leadingNewline = text[span.from] === "\n" ? "\n" : "";
    result = `${result.slice(0, span.from)}${leadingNewline}[neutralized: ${span.label}]${result.slice(span.to)}`;
  }
  return result;
}
