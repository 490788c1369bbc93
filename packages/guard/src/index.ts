// The boundaries a model's output cannot reach around: the permission policy, what outside
// text may look like before a model sees it, secrets and where they may go, signed packets
// and approval decisions, key files, and a logger that redacts.
export { decidePermission } from "./policy/permission-policy.ts";
export { type EntryScreen, entryScreen } from "./policy/entry-screen.ts";
export { compileGlob, isDotSegment, MAX_ALTERNATIVES } from "./policy/glob-match.ts";
export { escapeGlob, splitGlob, unescapeGlob } from "./policy/glob-literal.ts";
export { destinationOf, formatHostPort, type HostPort, hostPortProblem, parseHostPort } from "./policy/host-port.ts";
export { hostMatches, pathMatches, resourcesOutside, SCOPE_DIMENSIONS } from "./policy/resource-match.ts";
export { stripControlCharacters } from "./sanitize/control-characters.ts";
export { redactingLoggerOptions } from "./sanitize/pino-redaction.ts";
export { presentEvidence, presentLessons } from "./sanitize/present-evidence.ts";
export { type PresentedSchema, presentUntrustedSchema } from "./sanitize/present-schema.ts";
export {
  type PreparedUntrusted,
  type PresentedUntrusted,
  prepareUntrusted,
  presentPrepared,
  presentUntrusted,
  untrustedDataOf,
} from "./sanitize/present-untrusted.ts";
export { Redactor } from "./sanitize/redactor.ts";
export { sanitizeText } from "./sanitize/sanitize-text.ts";
export type { SizeLimits } from "./sanitize/size-limit.ts";
export { HostPortEntry, SecretEntry } from "./secrets/secret-binding.ts";
export { SecretBindings, type SecretReader, type SecretRefusal } from "./secrets/secret-bindings.ts";
export { assertAttenuated } from "./packets/attenuation.ts";
export { exportPacketKeys, generatePacketKeys, type PacketKeyPair } from "./packets/packet-keys.ts";
export { PacketSigner, PacketVerifier } from "./packets/packet-signer.ts";
export { type ApprovalAction, actionHashOf } from "./approvals/action-hash.ts";
export { ApprovalDecisionClaims, ApprovalSigner, ApprovalVerifier, decisionProblem } from "./approvals/approval-signature.ts";
export { ensureKeyPairFiles, generateKeyPair, keyPairFiles, loadPrivateKey, loadPublicKey } from "./keys/key-files.ts";
export { createLogger, type Logger, type LogLevel, logFileDestination, logLevelFrom } from "./logger.ts";
