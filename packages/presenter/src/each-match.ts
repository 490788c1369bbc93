/**
 * The matches of a global pattern in `text`, as `text.matchAll(pattern)`
 * gives them, but with the pattern itself: matchAll clones its regex on
 * every call, and a clone of the long injection patterns is recompiled
 * (50 µs for a 22-character text, against 0.5 µs with the compiled one).
 * Synchronous, so no other caller can move the shared `lastIndex` meanwhile.
 */
export function eachMatch(pattern: RegExp, text: string): RegExpExecArray[] {
  // As matchAll: a pattern without the g flag would find its first match forever.
  if (!pattern.global) throw new TypeError(`eachMatch needs a global pattern, got /${pattern.source.slice(0, 40)}/${pattern.flags}`);
  const matches: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    matches.push(match);
    // An empty match would be found again at the same place: step past it, as matchAll does.
    if (match[0].length === 0)
      pattern.lastIndex = advance(text, pattern.lastIndex, pattern.flags.includes("u") || pattern.flags.includes("v"));
  }
  pattern.lastIndex = 0;
  return matches;
}

function advance(text: string, index: number, unicode: boolean): number {
  if (!unicode || index + 1 >= text.length) return index + 1;
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff ? index + 2 : index + 1;
}
