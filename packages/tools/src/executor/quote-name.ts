/** A tool name as the model wrote it, quoted and cut: it may be anything the model produced. */
export function quoteName(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}
