// What is signed: handoff packets (Ed25519; only controllers hold the private key) with the
// attenuation a child's packet must keep, approval decisions (only deciders hold that key),
// and the key files both are kept in.
export { assertAttenuated } from "./packets/attenuation.ts";
export { exportPacketKeys, generatePacketKeys, type PacketKeyPair } from "./packets/packet-keys.ts";
export { PacketSigner, PacketVerifier } from "./packets/packet-signer.ts";
export { ApprovalDecisionClaims, ApprovalSigner, ApprovalVerifier, decisionProblem } from "./approvals/approval-signature.ts";
export { ensureKeyPairFiles, generateKeyPair, keyPairFiles, loadPrivateKey, loadPublicKey } from "./keys/key-files.ts";
