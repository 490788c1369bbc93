/** How deep a chain of `cause`s is followed before the rest is left out. */
const MAX_CAUSES = 5;

/**
 * An error as a plain record a redactor can walk: type, message, stack and
 * its own fields (`code`, `errno`, …), with its cause the same way. An
 * Error's message and stack are not enumerable, so walking it as it is keeps
 * only its extra fields (`{"code":"ECONNREFUSED"}`) and loses what went wrong.
 */
export function loggedError(error: Error, depth = 0): Record<string, unknown> {
  const record: Record<string, unknown> = { type: error.constructor?.name ?? error.name, message: error.message, stack: error.stack };
  for (const [key, value] of Object.entries(error)) record[key] = withLoggedErrors(value, depth);
  if (error.cause !== undefined && depth < MAX_CAUSES) record.cause = withLoggedErrors(error.cause, depth + 1);
  return record;
}

/** `value` with every Error inside it (at any depth of plain objects and arrays) turned into a `loggedError` record. */
export function withLoggedErrors(value: unknown, depth = 0): unknown {
  if (value instanceof Error) return loggedError(value, depth);
  if (Array.isArray(value)) return value.map((item) => withLoggedErrors(item, depth));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, withLoggedErrors(member, depth)]));
  }
  return value;
}
