import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { ensureKeyPairFiles, keyPairFiles } from "@rein/signing";
import { loadConfig } from "@rein/runtime";
import type { CommandHandler } from "./command-spec.ts";
import type { KEYS } from "./command-specs.ts";
import { out } from "./output.ts";

export const keysCommand: CommandHandler<typeof KEYS> = async (_generate, flags) => {
  const dir = flags.out ?? loadConfig({ file: flags.config }).keysDir;
  const pairs = [keyPairFiles(dir, "packet"), keyPairFiles(dir, "approval")];
  const existing = pairs.flatMap((files) => [files.privateKeyFile, files.publicKeyFile]).filter((file) => existsSync(file));
  if (existing.some((file) => file.includes("packet-")) && !flags.force) {
    throw new ReinError(
      "config_invalid",
      `${existing.join(", ")} already exist; nothing was written. Expected --force to replace them (every controller, decider and step worker must then be given the new keys)`,
    );
  }
  if (flags.force) for (const file of existing) await rm(file);
  ensureKeyPairFiles(dir, "packet");
  out(`wrote ${join(dir, "packet-private.pem")} (controllers only) and ${join(dir, "packet-public.pem")} (workers)`);
  out(`controllers: REIN_PACKET_PRIVATE_KEY_FILE=${join(dir, "packet-private.pem")}`);
  out(`workers:     REIN_PACKET_PUBLIC_KEY_FILE=${join(dir, "packet-public.pem")}`);
  const approval = ensureKeyPairFiles(dir, "approval");
  out(
    `${approval.created ? "wrote" : "kept the existing"} ${approval.privateKeyFile} (deciders only: rein approve/deny, rein serve --http) and ${approval.publicKeyFile} (step workers)`,
  );
  out(`deciders:     REIN_APPROVAL_PRIVATE_KEY_FILE=${approval.privateKeyFile}`);
  out(`step workers: REIN_APPROVAL_PUBLIC_KEY_FILE=${approval.publicKeyFile}`);
  return 0;
};
