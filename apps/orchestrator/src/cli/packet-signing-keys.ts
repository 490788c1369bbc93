import type { KeyObject } from "node:crypto";
import { ensureKeyPairFiles, loadPrivateKey, loadPublicKey } from "@rein/signing";
import type { ReinConfig } from "@rein/runtime";

export const PACKET_KEY_NAME = "packet";

export interface PacketSigningKeys {
  privateKey?: KeyObject;
  publicKey?: KeyObject;
  /** The private key file this call wrote, when it created the pair. */
  created?: string;
}

/**
 * The keys this process signs and verifies handoff packets with: REIN_PACKET_PRIVATE_KEY(_FILE) /
 * REIN_PACKET_PUBLIC_KEY(_FILE), else `<keysDir>/packet-*.pem`. With
 * `create` (controllers: `rein run`, `rein serve`) a missing pair is written
 * there once, so every process started from the same directory signs and
 * verifies with the same pair: a `rein run` beside a `rein serve` on the same
 * prefix never gets a packet the other one signed and it cannot verify.
 */
export function packetSigningKeys(
  config: Pick<ReinConfig, "keysDir">,
  options: { create: boolean; env?: NodeJS.ProcessEnv },
): PacketSigningKeys {
  const source = { dir: config.keysDir, env: options.env };
  let created: string | undefined;
  if (options.create && !loadPrivateKey(PACKET_KEY_NAME, source) && !loadPublicKey(PACKET_KEY_NAME, source)) {
    const written = ensureKeyPairFiles(config.keysDir, PACKET_KEY_NAME);
    if (written.created) created = written.privateKeyFile;
  }
  return { privateKey: loadPrivateKey(PACKET_KEY_NAME, source), publicKey: loadPublicKey(PACKET_KEY_NAME, source), created };
}
