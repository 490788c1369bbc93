import { prepareUntrusted } from "@rein/presenter";
import { type CallStage, need } from "../call-in-progress.ts";

/**
 * The text the model will see, redacted first and then bounded; when it is
 * cut, the whole redacted text is kept as an artifact the observation names.
 * An error is outside text as much as an output is (an HTTP body, an MCP
 * server's message), so it takes the same path.
 */
export const limitSize: CallStage = async (state) => {
  const execution = need(state, "execution");
  const text =
    execution.kind === "failed"
      ? execution.error
      : execution.kind === "result" && !execution.result.empty
        ? execution.result.rendered
        : undefined;
  if (text === undefined) return undefined;
  const { deps, context, trace } = state;
  const { maxBytes, maxLines } = deps.config.observations;
  const prepared = prepareUntrusted(text, { redactor: deps.redactor, maxBytes, maxLines });
  if (!prepared.truncated) {
    state.prepared = prepared;
    return undefined;
  }
  const artifactId = await deps.artifacts.put(context.runId, prepared.whole, { tool: need(state, "tool").name });
  state.prepared = { ...prepared, artifactId };
  await trace.emit("observation.truncated", { ...prepared.truncated, artifactId });
  return undefined;
};
