/**
 * Scope paths are globs: a tool that touches one literal path names it
 * escaped, so that a file called `[x]` or `*` is that file to the policy
 * and not a pattern (unescaped, `src/[x]/../../secrets/key` read as a glob
 * kept its `..` past the wildcard and matched no deny rule, while the tool
 * read `secrets/key`).
 */

const SPECIAL = /[\\*?[\]{}]/g;

/** The glob that matches exactly `path`. */
export function escapeGlob(path: string): string {
  return path.replace(SPECIAL, (char) => `\\${char}`);
}

/** A glob segment's text with its escapes removed (a trailing `\` stays, as the matcher reads it). */
export function unescapeGlob(segment: string): string {
  return segment.replace(/\\(.)/gsu, "$1");
}

/** Whether a segment holds an unescaped `*`, `?`, `[` or `{`. */
function isWild(segment: string): boolean {
  for (let index = 0; index < segment.length; index += 1) {
    const char = segment[index];
    if (char === "\\") index += 1;
    else if (char === "*" || char === "?" || char === "[" || char === "{") return true;
  }
  return false;
}

/**
 * Splits a glob at its first wildcard segment: `src/lib/**\/*.ts` → base
 * `src/lib` (unescaped: a path to resolve) and rest `**\/*.ts` (still a
 * glob). `rest` is undefined when the whole glob is one literal path.
 */
export function splitGlob(pattern: string): { base: string; rest?: string } {
  const segments = pattern.split("/");
  const wild = segments.findIndex(isWild);
  if (wild < 0) return { base: segments.map(unescapeGlob).join("/") };
  return { base: segments.slice(0, wild).map(unescapeGlob).join("/"), rest: segments.slice(wild).join("/") };
}
