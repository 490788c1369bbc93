import type { KeyObject } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureKeyPairFiles, generateKeyPair, loadPrivateKey, loadPublicKey } from "../../src/keys/key-files.ts";

let dir: string;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), "rein-key-files-")), "keys");
});
afterEach(() => rm(join(dir, ".."), { recursive: true, force: true }));

const pemOf = (key: KeyObject) => key.export({ type: "spki", format: "pem" }).toString();

describe("key files", () => {
  it("writes a named pair once, the private key readable by its owner only", async () => {
    const first = ensureKeyPairFiles(dir, "approval");
    expect(first).toMatchObject({
      created: true,
      privateKeyFile: join(dir, "approval-private.pem"),
      publicKeyFile: join(dir, "approval-public.pem"),
    });
    expect((await stat(first.privateKeyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o077).toBe(0);
    const written = await readFile(first.privateKeyFile, "utf8");
    expect(ensureKeyPairFiles(dir, "approval").created).toBe(false);
    expect(await readFile(first.privateKeyFile, "utf8")).toBe(written);
    const publicKey = loadPublicKey("approval", { dir, env: {} });
    expect(publicKey && pemOf(publicKey)).toBe(await readFile(first.publicKeyFile, "utf8"));
  });

  it("finds nothing in an empty directory, so a process without the key knows it has none", () => {
    expect(loadPrivateKey("approval", { dir, env: {} })).toBeUndefined();
    expect(loadPublicKey("approval", { dir, env: {} })).toBeUndefined();
  });

  it("prefers the environment over the directory, and derives the public key from a private one", () => {
    ensureKeyPairFiles(dir, "approval");
    const own = generateKeyPair();
    const env = { REIN_APPROVAL_PRIVATE_KEY: own.privateKey.export({ type: "pkcs8", format: "pem" }).toString() };
    const derived = loadPublicKey("approval", { dir: join(dir, "elsewhere"), env });
    expect(derived && pemOf(derived)).toBe(pemOf(own.publicKey));
    expect(pemOf(loadPublicKey("approval", { dir, env: { REIN_APPROVAL_PUBLIC_KEY: pemOf(own.publicKey) } }) as KeyObject)).toBe(
      pemOf(own.publicKey),
    );
  });

  it("reads only the environment when no key directory is named, as a process started with its keys in variables does", () => {
    const own = generateKeyPair();
    const privatePem = own.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    expect(loadPrivateKey("packet", { env: {} })).toBeUndefined();
    expect(loadPublicKey("packet", { env: {} })).toBeUndefined();
    expect(pemOf(loadPublicKey("packet", { env: { REIN_PACKET_PUBLIC_KEY: pemOf(own.publicKey) } }) as KeyObject)).toBe(
      pemOf(own.publicKey),
    );
    expect(loadPrivateKey("packet", { env: { REIN_PACKET_PRIVATE_KEY: privatePem } })?.asymmetricKeyType).toBe("ed25519");
  });

  it("says which variable or file is wrong", () => {
    expect(() => loadPrivateKey("approval", { dir, env: { REIN_APPROVAL_PRIVATE_KEY_FILE: join(dir, "missing.pem") } })).toThrow(
      /REIN_APPROVAL_PRIVATE_KEY_FILE .*no such file/,
    );
    expect(() => loadPublicKey("approval", { dir, env: { REIN_APPROVAL_PUBLIC_KEY: "not a key" } })).toThrow(
      /REIN_APPROVAL_PUBLIC_KEY is not a public key in PEM form/,
    );
  });
});
