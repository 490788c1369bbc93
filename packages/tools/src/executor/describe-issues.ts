import type { z } from "zod";

/**
 * One line per bad field: where it is, what was expected, what was received.
 * The model reads this to correct its call, so it names the path in the
 * form the model wrote it. A tool's bad output is described without the
 * received values: they are untrusted text and must not ride along in a
 * runtime message.
 */
export function describeIssues(error: z.ZodError, input: unknown, options: { showReceived?: boolean } = {}): string {
  return error.issues.map((issue) => `- ${describeIssue(issue, input, options.showReceived ?? true)}`).join("\n");
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown, showReceived: boolean): string {
  const field = issue.path.length === 0 ? "the arguments" : `field "${issue.path.map(String).join(".")}"`;
  if (!showReceived) return `${field}: ${issue.code === "invalid_type" ? `expected ${issue.expected}` : issue.message}`;
  const received = valueAt(input, issue.path);
  switch (issue.code) {
    case "invalid_type":
      return `${field}: expected ${issue.expected}, received ${describeValue(received)}`;
    case "unrecognized_keys":
      return `${field}: unexpected key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `"${key}"`).join(", ")}; remove ${issue.keys.length > 1 ? "them" : "it"}`;
    case "invalid_key":
      return `${field}: the key is not valid: ${issue.issues.map((inner) => inner.message).join("; ")}`;
    case "invalid_value":
      return `${field}: expected one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}, received ${describeValue(received)}`;
    default:
      return `${field}: ${issue.message}, received ${describeValue(received)}`;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing (the field is missing)";
  if (value === null) return "null";
  const kind = Array.isArray(value) ? "array" : typeof value;
  const json = JSON.stringify(value) ?? String(value);
  return `${kind} ${json.length > 80 ? `${json.slice(0, 77)}...` : json}`;
}
