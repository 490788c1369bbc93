import type { Observation } from "../../contracts/index.ts";
import type { Redactor } from "../../sanitize/redactor.ts";
import { fenceUntrusted } from "../../sanitize/fence.ts";
import { sanitizeText } from "../../sanitize/sanitize-text.ts";
import type { ArtifactWriter } from "../define-tool.ts";
import { boundText, type SizeLimits } from "./size-limit.ts";

export interface Presented {
  content: string;
  flags: string[];
  truncated?: Observation["truncated"];
  artifactId?: string;
}

/**
 * Rendered tool output → what the model reads. Secrets and PII are redacted
 * first, so neither the artifact nor the observation ever holds them; then
 * the size limit (the whole redacted text goes to an artifact, the model
 * gets a bounded head and says where the rest is); then sanitization and
 * the untrusted-data fence.
 */
export async function presentResult(
  rendered: string,
  options: {
    tool: string;
    runId: string;
    limits: SizeLimits;
    artifacts: ArtifactWriter;
    redactor?: Redactor;
  },
): Promise<Presented> {
  const flags = new Set<string>();
  let text = rendered;
  if (options.redactor) {
    const redacted = options.redactor.redact(text);
    text = redacted.text;
    if (redacted.secrets > 0) flags.add("secret_redacted");
    if (redacted.pii > 0) flags.add("pii_redacted");
  }
  const bounded = boundText(text, options.limits);
  const notes: string[] = [];
  let truncated: Observation["truncated"];
  let artifactId: string | undefined;
  if (bounded.truncated) {
    artifactId = await options.artifacts.put(options.runId, text, { tool: options.tool });
    truncated = {
      shownLines: bounded.shown.lines,
      totalLines: bounded.total.lines,
      shownBytes: bounded.shown.bytes,
      totalBytes: bounded.total.bytes,
      artifactId,
    };
    flags.add("truncated");
    notes.push(
      `Truncated: ${bounded.shown.lines} of ${bounded.total.lines} lines shown (${bounded.shown.bytes} of ${bounded.total.bytes} bytes); full result in artifact ${artifactId}.`,
    );
  }
  const sanitized = sanitizeText(bounded.text);
  for (const flag of sanitized.flags) flags.add(flag);
  const fenced = fenceUntrusted(sanitized.text, { tool: options.tool, flags: sanitized.flags, notes });
  return { content: fenced.text, flags: [...flags].sort(), truncated, artifactId };
}
