import { generateKeyPairSync, type KeyObject } from "node:crypto";

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
