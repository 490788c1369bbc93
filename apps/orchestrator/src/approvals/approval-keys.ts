import { ReinError } from "@rein/contracts";
import { ApprovalSigner, ApprovalVerifier, ensureKeyPairFiles, loadPrivateKey, loadPublicKey } from "@rein/signing";
import type { ReinConfig } from "@rein/runtime";

export const APPROVAL_KEY_NAME = "approval";

export interface ApprovalKeys {
  /** Present in processes that take a person's decision (they hold the private key). */
  signer?: ApprovalSigner;
  /** Present wherever the public key is known; the gate needs it. */
  verifier?: ApprovalVerifier;
  /** The private key file this call wrote, when it created the pair. */
  created?: string;
}

export interface ApprovalKeyOptions {
  /** Write a pair into `keysDir` when this process finds none (dev mode: `rein run`, `rein serve --http`). */
  create?: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * The approval keys this process holds: from `REIN_APPROVAL_PRIVATE_KEY(_FILE)`
 * / `REIN_APPROVAL_PUBLIC_KEY(_FILE)`, else `<keysDir>/approval-*.pem`.
 * Deciders need the private key; step workers need only the public one.
 */
export function approvalKeys(config: Pick<ReinConfig, "keysDir">, options: ApprovalKeyOptions = {}): ApprovalKeys {
  const source = { dir: config.keysDir, env: options.env };
  let created: string | undefined;
  if (options.create && !loadPrivateKey(APPROVAL_KEY_NAME, source) && !loadPublicKey(APPROVAL_KEY_NAME, source)) {
    const written = ensureKeyPairFiles(config.keysDir, APPROVAL_KEY_NAME);
    if (written.created) created = written.privateKeyFile;
  }
  const privateKey = loadPrivateKey(APPROVAL_KEY_NAME, source);
  const publicKey = loadPublicKey(APPROVAL_KEY_NAME, source);
  return {
    signer: privateKey && new ApprovalSigner(privateKey),
    verifier: publicKey && new ApprovalVerifier(publicKey),
    created,
  };
}

/** The signer, or an error that says where the approval private key goes. */
export function requireSigner(keys: ApprovalKeys, config: Pick<ReinConfig, "keysDir">): ApprovalSigner {
  if (keys.signer) return keys.signer;
  throw new ReinError(
    "config_invalid",
    `deciding an approval needs the approval private key: expected ${config.keysDir}/approval-private.pem or REIN_APPROVAL_PRIVATE_KEY_FILE (create one with \`rein keys generate\`)`,
  );
}

/** The verifier, or an error that says where the approval public key goes. */
export function requireVerifier(keys: ApprovalKeys, config: Pick<ReinConfig, "keysDir">): ApprovalVerifier {
  if (keys.verifier) return keys.verifier;
  throw new ReinError(
    "config_invalid",
    `a step worker needs the approval public key to check approvals: expected ${config.keysDir}/approval-public.pem or REIN_APPROVAL_PUBLIC_KEY_FILE (create a pair with \`rein keys generate\`)`,
  );
}
