import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";

export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** Where one named pair lives in a key directory: `<dir>/<name>-private.pem` and `<dir>/<name>-public.pem`. */
export interface KeyPairFiles {
  privateKeyFile: string;
  publicKeyFile: string;
}

export interface NamedKeyOptions {
  /** The key directory (config `keysDir`, default `.rein/keys`); without one, only the environment is read. */
  dir?: string;
  /** Environment overrides: `REIN_<NAME>_PRIVATE_KEY` / `_FILE`, `REIN_<NAME>_PUBLIC_KEY` / `_FILE`. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
}

export function generateKeyPair(): KeyPair {
  return generateKeyPairSync("ed25519");
}

export function keyPairFiles(dir: string, name: string): KeyPairFiles {
  return { privateKeyFile: join(dir, `${name}-private.pem`), publicKeyFile: join(dir, `${name}-public.pem`) };
}

/**
 * Writes a fresh Ed25519 pair named `name` into `dir` unless its private key
 * file is there already. The directory is 0700 and the private key 0600; the
 * private file is created exclusively, so two processes starting at once end
 * with one pair. Returns whether this call wrote it.
 */
export function ensureKeyPairFiles(dir: string, name: string): KeyPairFiles & { created: boolean } {
  const files = keyPairFiles(dir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pair = generateKeyPair();
  try {
    writeFileSync(files.privateKeyFile, pair.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return { ...files, created: false };
  }
  chmodSync(files.privateKeyFile, 0o600);
  writeFileSync(files.publicKeyFile, pair.publicKey.export({ type: "spki", format: "pem" }));
  return { ...files, created: true };
}

/**
 * The private key of pair `name` (`packet`, `approval`), found by the one
 * rule every Rein key is found by: `REIN_<NAME>_PRIVATE_KEY` (PEM text),
 * else `REIN_<NAME>_PRIVATE_KEY_FILE` (a path, which must be readable), else
 * `<dir>/<name>-private.pem` when a directory is named. Absent means this
 * process holds none.
 */
export function loadPrivateKey(name: string, options: NamedKeyOptions): KeyObject | undefined {
  const found = findPem(name, "private", options);
  if (!found) return undefined;
  try {
    return createPrivateKey(found.pem);
  } catch (error) {
    throw new ReinError(
      "config_invalid",
      `${found.from} is not a private key in PEM form; expected an Ed25519 key (create one with \`rein keys generate\`)`,
      { cause: error },
    );
  }
}

/**
 * The public key of pair `name`, found like `loadPrivateKey` with
 * `PUBLIC`; a process that holds only the private key derives it.
 */
export function loadPublicKey(name: string, options: NamedKeyOptions): KeyObject | undefined {
  const found = findPem(name, "public", options);
  if (!found) {
    const privateKey = loadPrivateKey(name, options);
    return privateKey && createPublicKey(privateKey);
  }
  try {
    return createPublicKey(found.pem);
  } catch (error) {
    throw new ReinError(
      "config_invalid",
      `${found.from} is not a public key in PEM form; expected an Ed25519 key (create one with \`rein keys generate\`)`,
      { cause: error },
    );
  }
}

function findPem(name: string, half: "private" | "public", options: NamedKeyOptions): { pem: string; from: string } | undefined {
  const env = options.env ?? process.env;
  const variable = `REIN_${name.toUpperCase()}_${half.toUpperCase()}_KEY`;
  const inline = env[variable];
  if (inline) return { pem: inline, from: variable };
  const file =
    env[`${variable}_FILE`] ??
    (options.dir === undefined ? undefined : keyPairFiles(options.dir, name)[half === "private" ? "privateKeyFile" : "publicKeyFile"]);
  if (file === undefined) return undefined;
  const from = env[`${variable}_FILE`] ? `${variable}_FILE (${file})` : file;
  try {
    return { pem: readFileSync(file, "utf8"), from };
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    if (missing && !env[`${variable}_FILE`]) return undefined;
    throw new ReinError("config_invalid", `cannot read ${from}: ${missing ? "no such file" : (error as Error).message}`, { cause: error });
  }
}
