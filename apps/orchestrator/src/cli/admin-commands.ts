import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { ReinError } from "@rein/contracts";
import { ensureKeyPairFiles, keyPairFiles } from "@rein/signing";
import { loadConfig } from "@rein/runtime";
import type { CommandHandler } from "./command-spec.ts";
import type { KEYS } from "./command-specs.ts";
import { out } from "./output.ts";

/**
 * `rein keys generate`: the packet and approval pairs, each written where it
 * is missing (a controller's start may have written one already); with both
 * there, nothing is replaced without --force.
 */
export const keysCommand: CommandHandler<typeof KEYS> = async (_generate, flags) => {
  const dir = flags.out ?? loadConfig({ file: flags.config }).keysDir;
  const pairs = [keyPairFiles(dir, "packet"), keyPairFiles(dir, "approval")];
  const existing = pairs.flatMap((files) => [files.privateKeyFile, files.publicKeyFile]).filter((file) => existsSync(file));
  const complete = pairs.every((files) => existsSync(files.privateKeyFile));
  if (complete && !flags.force) {
    throw new ReinError(
      "config_invalid",
      `${existing.join(", ")} already exist; nothing was written. Expected --force to replace them (every controller, decider and step worker must then be given the new keys)`,
    );
  }
  if (flags.force) for (const file of existing) await rm(file);
  const packet = ensureKeyPairFiles(dir, "packet");
  out(
    `${packet.created ? "wrote" : "kept the existing"} ${packet.privateKeyFile} (controllers only) and ${packet.publicKeyFile} (workers)`,
  );
  out(`controllers: REIN_PACKET_PRIVATE_KEY_FILE=${packet.privateKeyFile}`);
  out(`workers:     REIN_PACKET_PUBLIC_KEY_FILE=${packet.publicKeyFile}`);
  const approval = ensureKeyPairFiles(dir, "approval");
  out(
    `${approval.created ? "wrote" : "kept the existing"} ${approval.privateKeyFile} (deciders only: rein approve/deny, rein serve --http) and ${approval.publicKeyFile} (step workers)`,
  );
  out(`deciders:     REIN_APPROVAL_PRIVATE_KEY_FILE=${approval.privateKeyFile}`);
  out(`step workers: REIN_APPROVAL_PUBLIC_KEY_FILE=${approval.publicKeyFile}`);
  return 0;
};
