export { stripControlCharacters, type StrippedText } from "./control-characters.ts";
export { fold, type FoldedText } from "./fold.ts";
export { passesLuhn } from "./luhn.ts";
export { redactingLoggerOptions } from "./pino-redaction.ts";
export { presentEvidence, type PresentEvidenceOptions, presentLessons } from "./present-evidence.ts";
export {
  presentUntrusted,
  untrustedDataOf,
  type PresentedUntrusted,
  type PresentUntrustedOptions,
  type UntrustedEntry,
  type UntrustedTruncation,
} from "./present-untrusted.ts";
export { PII_MARK, type RedactionResult, Redactor, type RedactorOptions, SECRET_MARK } from "./redactor.ts";
export { type PresentedSchema, type PresentSchemaOptions, presentUntrustedSchema } from "./present-schema.ts";
export { sanitizeText, type SanitizedText } from "./sanitize-text.ts";
export { SUSPICIOUS_PATTERNS, type SuspiciousPattern } from "./suspicious-patterns.ts";
export type { SizeLimits } from "./size-limit.ts";
