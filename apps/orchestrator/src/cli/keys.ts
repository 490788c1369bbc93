import type { KeyObject } from "node:crypto";
import { generatePacketKeys, privateKeyFromEnv, publicKeyFromEnv } from "@rein/core";
import { err } from "./output.ts";

export interface ProcessKeys {
  privateKey?: KeyObject;
  publicKey?: KeyObject;
}

/**
 * Packet keys for this process from the environment. In dev mode (every role
 * in one process) a missing pair is generated for this process, and we say so.
 */
export function processKeys(options: { devMode: boolean }): ProcessKeys {
  const privateKey = privateKeyFromEnv();
  const publicKey = publicKeyFromEnv();
  if (options.devMode && (!privateKey || !publicKey)) {
    const generated = generatePacketKeys();
    err("dev mode: generated an Ed25519 packet-signing key pair for this process (set REIN_PACKET_PRIVATE_KEY / REIN_PACKET_PUBLIC_KEY to use your own)");
    return { privateKey: generated.privateKey, publicKey: generated.publicKey };
  }
  return { privateKey, publicKey };
}
