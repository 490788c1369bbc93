import { describe, expect, it } from "vitest";
import type { PacketBody } from "@rein/contracts";
import { generatePacketKeys, PacketSigner, PacketVerifier } from "../../src/index.ts";
import { packetBody } from "@rein/contracts/testing";

const body = packetBody as PacketBody;
const keys = generatePacketKeys();
const signer = new PacketSigner(keys.privateKey);
const verifier = new PacketVerifier(keys.publicKey);
const now = new Date("2026-11-30T00:30:00.000Z");

describe("packet signing", () => {
  it("verifies a packet the controller signed", () => {
    const packet = signer.sign(body);
    expect(verifier.verify(packet, { now, maxDepth: 3 }).body.stepId).toBe("s1");
  });

  it("refuses an unsigned packet", () => {
    const { signature: _dropped, ...unsigned } = signer.sign(body);
    expect(() => verifier.verify(unsigned, { now, maxDepth: 3 })).toThrow(/malformed or unsigned/);
  });

  it("refuses a packet whose body was altered after signing", () => {
    const packet = signer.sign(body);
    const widened = { ...packet, body: { ...packet.body, surface: [...packet.body.surface, { name: "run_command", scope: {} }] } };
    expect(() => verifier.verify(widened, { now, maxDepth: 3 })).toThrow(/altered/);
  });

  it("refuses a packet signed by another key, even with a matching hash", () => {
    const forger = new PacketSigner(generatePacketKeys().privateKey);
    expect(() => verifier.verify(forger.sign(body), { now, maxDepth: 3 })).toThrow(/signature does not verify/);
  });

  it("refuses an expired packet", () => {
    expect(() => verifier.verify(signer.sign(body), { now: new Date("2026-11-30T02:00:00.000Z"), maxDepth: 3 })).toThrow(/expired/);
  });

  it("refuses a packet deeper than the delegation limit", () => {
    expect(() => verifier.verify(signer.sign({ ...body, depth: 4 }), { now, maxDepth: 3 })).toThrow(/depth 4, over the maximum of 3/);
  });
});
