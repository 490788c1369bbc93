import { presentPrepared } from "@rein/presenter";
import { type CallStage, need } from "../call-in-progress.ts";

/** Control characters out, the data fenced with a fresh nonce, fake role or approval text flagged. */
export const sanitize: CallStage = async (state) => {
  const { prepared } = state;
  if (!prepared) return undefined;
  const tool = need(state, "tool");
  const failed = need(state, "execution").kind === "failed";
  const presented = presentPrepared(prepared, {
    source: failed ? `Error reported by tool ${tool.name}` : `Output of tool ${tool.name}`,
    keptIn: prepared.artifactId ? `artifact ${prepared.artifactId}` : undefined,
  });
  state.presented = presented;
  if (presented.flags.some((flag) => flag !== "truncated")) await state.trace.emit("observation.flagged", { flags: presented.flags });
  return undefined;
};
