/**
 * Whether a tool returned nothing at all. This is about the call, not the
 * world: an empty search result (`{ matches: [] }` included) and a tool that
 * printed nothing both qualify, and the observation says so without
 * claiming "nothing found".
 */
export function isEmptyResult(output: unknown, rendered: string): boolean {
  if (output === undefined || output === null) return true;
  if (Array.isArray(output)) return output.length === 0;
  if (typeof output === "object")
    return Object.values(output).every((value) => value === undefined || (Array.isArray(value) && value.length === 0));
  return rendered.trim().length === 0;
}
