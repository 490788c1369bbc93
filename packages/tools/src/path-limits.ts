/**
 * The longest path any tool may name, in characters. Checked before a path
 * is resolved, matched or walked: an unbounded path of many missing
 * components used to cost seconds of worker CPU in workspace resolution.
 */
export const MAX_PATH_CHARS = 1024;

/** The most components (`a/b/c` has three) a path or glob may have. */
export const MAX_PATH_COMPONENTS = 64;

/** What is wrong with `path`'s size, as a sentence fragment, or undefined when it is within the limits. */
export function pathSizeProblem(path: string): string | undefined {
  if (path.length > MAX_PATH_CHARS) return `a path may have at most ${MAX_PATH_CHARS} characters; this one has ${path.length}`;
  const components = countComponents(path);
  if (components > MAX_PATH_COMPONENTS) return `a path may have at most ${MAX_PATH_COMPONENTS} path components; this one has ${components}`;
  return undefined;
}

function countComponents(path: string): number {
  let count = 0;
  let inComponent = false;
  for (let index = 0; index < path.length; index += 1) {
    const separator = path[index] === "/" || path[index] === "\\";
    if (!separator && !inComponent) count += 1;
    inComponent = !separator;
  }
  return count;
}
