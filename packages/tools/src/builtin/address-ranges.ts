import { isIP } from "node:net";

/**
 * Addresses `http_request` does not connect to unless the deployment's
 * allowlist names that very address: a host name the allowlist admits may
 * resolve to one of them (DNS rebinding, an internal name, a cloud's
 * metadata service), and the name alone says nothing about where it leads.
 */
const IPV4_RANGES: readonly Range[] = [
  range("169.254.169.254/32", "a cloud metadata address"),
  range("100.100.100.200/32", "a cloud metadata address"),
  range("0.0.0.0/8", "an unspecified (this-network) address"),
  range("10.0.0.0/8", "a private address"),
  range("100.64.0.0/10", "a shared (CGNAT) address"),
  range("127.0.0.0/8", "a loopback address"),
  range("169.254.0.0/16", "a link-local address"),
  range("172.16.0.0/12", "a private address"),
  range("192.0.0.0/24", "a protocol-assignment address"),
  range("192.168.0.0/16", "a private address"),
  range("198.18.0.0/15", "a benchmarking address"),
  range("224.0.0.0/4", "a multicast address"),
  range("240.0.0.0/4", "a reserved or broadcast address"),
];

const IPV6_RANGES: readonly Range[] = [
  range("fd00:ec2::254/128", "a cloud metadata address"),
  range("::/128", "an unspecified address"),
  range("::1/128", "a loopback address"),
  // IPv4-compatible (deprecated) addresses: nothing public is reached this way.
  range("::/96", "an IPv4-compatible address"),
  range("64:ff9b:1::/48", "a local-use NAT64 address"),
  range("fc00::/7", "a unique-local (private) address"),
  range("fe80::/10", "a link-local address"),
  range("fec0::/10", "a site-local address"),
  range("ff00::/8", "a multicast address"),
  // Teredo's client address is obfuscated: the narrower answer is to refuse the range.
  range("2001::/32", "a Teredo tunnel address"),
];

/** IPv6 ranges that carry an IPv4 address, and where its four bytes start. */
const EMBEDDING: readonly { prefix: Range; at: number; name: string }[] = [
  { prefix: range("::ffff:0:0/96", ""), at: 12, name: "IPv4-mapped" },
  { prefix: range("64:ff9b::/96", ""), at: 12, name: "NAT64" },
  { prefix: range("2002::/16", ""), at: 2, name: "6to4" },
];

/**
 * What makes `address` one `http_request` refuses (a phrase such as "a
 * loopback address"), or undefined for a public unicast address. An IPv6
 * address that carries an IPv4 one (mapped, NAT64, 6to4) is judged by it.
 * Anything that is not an IP address is refused.
 */
export function blockedAddressKind(address: string): string | undefined {
  const bytes = addressBytes(address);
  if (!bytes) return "not an IP address";
  if (bytes.length === 4) return IPV4_RANGES.find((candidate) => inRange(bytes, candidate))?.kind;
  for (const { prefix, at, name } of EMBEDDING) {
    if (!inRange(bytes, prefix)) continue;
    const inner = IPV4_RANGES.find((candidate) => inRange(bytes.subarray(at, at + 4), candidate));
    return inner ? `${inner.kind} (${name})` : undefined;
  }
  return IPV6_RANGES.find((candidate) => inRange(bytes, candidate))?.kind;
}

/** Whether two IP addresses (IPv6 with or without brackets) are the same address. */
export function sameAddress(a: string, b: string): boolean {
  const left = addressBytes(a);
  const right = addressBytes(b);
  return left !== undefined && right !== undefined && left.length === right.length && left.every((byte, index) => byte === right[index]);
}

interface Range {
  bytes: Uint8Array;
  bits: number;
  kind: string;
}

function range(cidr: string, kind: string): Range {
  const [address = "", bits = ""] = cidr.split("/");
  return { bytes: addressBytes(address) as Uint8Array, bits: Number(bits), kind };
}

function inRange(bytes: Uint8Array, { bytes: prefix, bits }: Range): boolean {
  if (bytes.length !== prefix.length) return false;
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    const index = bit / 8;
    if (((bytes[index] as number) & mask) !== ((prefix[index] as number) & mask)) return false;
  }
  return true;
}

/** An IPv4 address as 4 bytes, an IPv6 one (brackets and a `%zone` allowed) as 16, else undefined. */
export function addressBytes(text: string): Uint8Array | undefined {
  const address = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split(".").map(Number));
  if (family !== 6) return undefined;
  const [head = "", tail] = address.split("::");
  const groups = (part: string | undefined): number[] => {
    if (!part) return [];
    return part.split(":").flatMap((group) => {
      if (!group.includes(".")) return [Number.parseInt(group, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const left = groups(head);
  const right = groups(tail);
  const words = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  words.forEach((word, index) => {
    bytes[index * 2] = word >> 8;
    bytes[index * 2 + 1] = word & 0xff;
  });
  return bytes;
}
