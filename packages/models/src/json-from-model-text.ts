/**
 * The one way Rein reads JSON a model wrote as text. Models outside a strict
 * JSON mode often wrap it in a ```json fence or a sentence, so this leniency,
 * and no other, applies: the whole text, else the first fenced block, else
 * the outermost {...}, else the outermost [...] is parsed. Undefined when none
 * of them is JSON; the caller's schema decides whether the value is right.
 */
export function parseJsonText(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(trimmed);
  const candidates = [trimmed, fenced?.[1]?.trim(), outermost(trimmed, "{", "}"), outermost(trimmed, "[", "]")];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

function outermost(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}
