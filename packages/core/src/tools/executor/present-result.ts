import type { Observation } from "../../contracts/index.ts";
import { prepareUntrusted, presentPrepared } from "../../sanitize/present-untrusted.ts";
import type { Redactor } from "../../sanitize/redactor.ts";
import type { SizeLimits } from "../../sanitize/size-limit.ts";
import type { ArtifactWriter } from "../define-tool.ts";

export interface Presented {
  content: string;
  flags: string[];
  truncated?: Observation["truncated"];
  artifactId?: string;
  /** The redacted, bounded text, for the trace and logs (never the raw one). */
  shown: string;
}

/**
 * A tool's output or error → what the model reads, through the one
 * presenter (`presentUntrusted`). What this adds is the artifact: when the
 * text is cut, the whole redacted text is kept and the preamble says where.
 * Errors take the same path as outputs: an upstream error body is as much
 * outside text as a successful one.
 */
export async function presentResult(
  rendered: string,
  options: {
    tool: string;
    runId: string;
    limits: SizeLimits;
    artifacts: ArtifactWriter;
    redactor?: Redactor;
    /** The text is the tool's error, not its output. */
    failed?: boolean;
  },
): Promise<Presented> {
  const prepared = prepareUntrusted(rendered, { redactor: options.redactor, maxBytes: options.limits.maxBytes, maxLines: options.limits.maxLines });
  let truncated: Observation["truncated"];
  let artifactId: string | undefined;
  if (prepared.truncated) {
    artifactId = await options.artifacts.put(options.runId, prepared.whole, { tool: options.tool });
    truncated = { ...prepared.truncated, artifactId };
  }
  const source = options.failed ? `Error reported by tool ${options.tool}` : `Output of tool ${options.tool}`;
  const presented = presentPrepared(prepared, { source, keptIn: artifactId ? `artifact ${artifactId}` : undefined });
  return { content: presented.text, flags: presented.flags, truncated, artifactId, shown: prepared.shown };
}
