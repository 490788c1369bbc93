import { createHash } from "node:crypto";
import { ReinError } from "@rein/contracts";

const VALID = /^[a-zA-Z0-9_.-]{1,64}$/;

/**
 * The registry name of a server's tool: `server__tool`, with characters
 * models reject replaced by `_`, and a short hash of the original when it
 * had to be shortened or rewritten, so two tools never collapse into one name.
 */
export function mcpToolName(server: string, tool: string): string {
  const cleaned = tool.replace(/[^a-zA-Z0-9_.-]/g, "_");
  let name = `${server}__${cleaned}`;
  if (cleaned !== tool || name.length > 64) {
    const suffix = createHash("sha256").update(tool).digest("hex").slice(0, 8);
    name = `${name.slice(0, 64 - suffix.length - 1)}_${suffix}`;
  }
  if (!VALID.test(name)) {
    throw new ReinError(
      "config_invalid",
      `MCP tool ${JSON.stringify(tool)} of server ${server} cannot be given a valid name; expected ^[a-zA-Z0-9_.-]{1,64}$`,
    );
  }
  return name;
}
