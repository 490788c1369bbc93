import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { ReinError } from "../errors.ts";

export interface PacketKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function generatePacketKeys(): PacketKeyPair {
  return generateKeyPairSync("ed25519");
}

export function exportPacketKeys(keys: PacketKeyPair): { privateKeyPem: string; publicKeyPem: string } {
  return {
    privateKeyPem: keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: keys.publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

const pemOf = (value: string): string => (value.includes("-----BEGIN") ? value : readFileSync(value, "utf8"));

/**
 * The controller's signing key, from REIN_PACKET_PRIVATE_KEY (PEM text) or
 * REIN_PACKET_PRIVATE_KEY_FILE. Absent means none is configured.
 */
export function privateKeyFromEnv(env: NodeJS.ProcessEnv = process.env): KeyObject | undefined {
  const value = env.REIN_PACKET_PRIVATE_KEY ?? env.REIN_PACKET_PRIVATE_KEY_FILE;
  if (!value) return undefined;
  try {
    return createPrivateKey(pemOf(value));
  } catch (error) {
    throw new ReinError("config_invalid", "REIN_PACKET_PRIVATE_KEY is not an Ed25519 private key in PEM form", { cause: error });
  }
}

/** A worker's verification key, from REIN_PACKET_PUBLIC_KEY or REIN_PACKET_PUBLIC_KEY_FILE. */
export function publicKeyFromEnv(env: NodeJS.ProcessEnv = process.env): KeyObject | undefined {
  const value = env.REIN_PACKET_PUBLIC_KEY ?? env.REIN_PACKET_PUBLIC_KEY_FILE;
  if (!value) return undefined;
  try {
    return createPublicKey(pemOf(value));
  } catch (error) {
    throw new ReinError("config_invalid", "REIN_PACKET_PUBLIC_KEY is not an Ed25519 public key in PEM form", { cause: error });
  }
}
