// The checks a call passes and what must never leak: the permission policy with its glob,
// host:port and resource matching, secrets and where they may go, redaction of secrets and
// PII, control characters, and a logger that redacts.
export { decidePermission } from "./policy/permission-policy.ts";
export { type EntryScreen, entryScreen } from "./policy/entry-screen.ts";
export { compileGlob, isDotSegment, MAX_ALTERNATIVES } from "./policy/glob-match.ts";
export { escapeGlob, splitGlob, unescapeGlob } from "./policy/glob-literal.ts";
export { destinationOf, formatHostPort, type HostPort, hostPortProblem, parseHostPort } from "./policy/host-port.ts";
export { hostMatches, pathMatches, resourcesOutside, SCOPE_DIMENSIONS } from "./policy/resource-match.ts";
export { stripControlCharacters } from "./sanitize/control-characters.ts";
export { redactingLoggerOptions } from "./sanitize/pino-redaction.ts";
export { Redactor } from "./sanitize/redactor.ts";
export { HostPortEntry, SecretEntry } from "./secrets/secret-binding.ts";
export { SecretBindings, type SecretReader, type SecretRefusal } from "./secrets/secret-bindings.ts";
export { createLogger, type Logger, type LogLevel, logFileDestination, logLevelFrom } from "./logger.ts";
