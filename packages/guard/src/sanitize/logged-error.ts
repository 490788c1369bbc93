/** How deep a chain of `cause`s is followed before the rest is left out. */
const MAX_CAUSES = 5;
// An error's own fields can carry a whole request: ioredis puts the command on a ReplyError
// (a Lua script's text, msgpack Buffers of job data), which made one log line tens of KB.
const FIELD_CHARS = 300;
const FIELD_ITEMS = 20;

/**
 * An error as a plain record a redactor can walk: type, message, stack and
 * its own fields (`code`, `errno`, …), with its cause the same way. An
 * Error's message and stack are not enumerable, so walking it as it is keeps
 * only its extra fields (`{"code":"ECONNREFUSED"}`) and loses what went wrong.
 */
export function loggedError(error: Error, depth = 0): Record<string, unknown> {
  const record: Record<string, unknown> = { type: error.constructor?.name ?? error.name, message: error.message, stack: error.stack };
  for (const [key, value] of Object.entries(error)) record[key] = withLoggedErrors(bounded(value), depth);
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

/** A field of an error, cut to what a log line should carry: long text shortened, bytes counted, long lists cut. */
function bounded(value: unknown, depth = 0): unknown {
  if (typeof value === "string")
    return value.length <= FIELD_CHARS ? value : `${value.slice(0, FIELD_CHARS)}… (${value.length} characters)`;
  if (ArrayBuffer.isView(value)) return `<${value.byteLength} bytes>`;
  if (value instanceof Error || depth > 3) return value;
  if (Array.isArray(value)) {
    const shown = value.slice(0, FIELD_ITEMS).map((item) => bounded(item, depth + 1));
    return value.length > FIELD_ITEMS ? [...shown, `… (${value.length - FIELD_ITEMS} more)`] : shown;
  }
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, bounded(member, depth + 1)]));
  }
  return value;
}
