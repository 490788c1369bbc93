// The one way outside text (tool output and errors, MCP, HTTP, plugin text and schemas,
// lessons, evidence) reaches any prompt: redacted, sanitized of control characters and of
// chat-template, role and approval tokens, flagged, bounded and fenced as data.
export {
  type PreparedUntrusted,
  type PresentedUntrusted,
  prepareUntrusted,
  presentPrepared,
  presentUntrusted,
  untrustedDataOf,
} from "./present-untrusted.ts";
export { presentEvidence, presentLessons } from "./present-evidence.ts";
export { type PresentedSchema, presentUntrustedSchema } from "./present-schema.ts";
export { sanitizeText } from "./sanitize-text.ts";
export type { SizeLimits } from "./size-limit.ts";
