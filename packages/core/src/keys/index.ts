export {
  ensureKeyPairFiles,
  generateKeyPair,
  keyPairFiles,
  loadPrivateKey,
  loadPublicKey,
  type KeyPair,
  type KeyPairFiles,
  type NamedKeyOptions,
} from "./key-files.ts";
