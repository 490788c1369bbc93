import { sign, verify, type KeyObject } from "node:crypto";
import { hashOf, HandoffPacket, PacketBody, ReinError } from "@rein/contracts";

/** Signs packet bodies. Only controllers hold one. */
export class PacketSigner {
  constructor(private readonly privateKey: KeyObject) {}

  sign(body: PacketBody): HandoffPacket {
    const validated = PacketBody.parse(body);
    const contextHash = hashOf(validated);
    const signature = sign(null, Buffer.from(contextHash), this.privateKey).toString("base64");
    return { body: validated, contextHash, signature };
  }
}

export interface PacketVerifyOptions {
  now?: Date;
  maxDepth: number;
}

/**
 * Verifies a packet the way a worker must before acting on it: shape,
 * hash, signature, expiry and depth. Throws `packet_invalid` naming the
 * broken invariant.
 */
export class PacketVerifier {
  constructor(private readonly publicKey: KeyObject) {}

  verify(packet: unknown, options: PacketVerifyOptions): HandoffPacket {
    const parsed = HandoffPacket.safeParse(packet);
    if (!parsed.success) {
      throw invalid(`the packet is malformed or unsigned: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    }
    const { body, contextHash, signature } = parsed.data;
    if (hashOf(body) !== contextHash) throw invalid("the packet was altered: its body does not match contextHash");
    let valid = false;
    try {
      valid = verify(null, Buffer.from(contextHash), this.publicKey, Buffer.from(signature, "base64"));
    } catch {
      valid = false;
    }
    if (!valid) throw invalid("the packet signature does not verify against the controller's public key");
    const now = options.now ?? new Date();
    if (Date.parse(body.expiresAt) <= now.getTime()) throw invalid(`the packet expired at ${body.expiresAt}`);
    if (body.depth > options.maxDepth) {
      throw invalid(`the packet is at delegation depth ${body.depth}, over the maximum of ${options.maxDepth}`);
    }
    return parsed.data;
  }
}

const invalid = (message: string) => new ReinError("packet_invalid", message);
