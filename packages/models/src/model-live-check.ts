import { type Role, errorMessage, ReinError } from "@rein/contracts";
import type { ModelProvider, ModelRequest } from "./model-provider.ts";

/** Why a live check failed; each comes with its fix in `message`. */
export type LiveCheckFailure =
  | "model_not_served"
  | "key_refused"
  | "no_access"
  | "parameter_refused"
  | "capability_missing"
  | "quota_exhausted"
  | "request_refused";

export interface LiveModelCheck {
  provider: string;
  model: string;
  /** The roles whose settings this one call stood for. */
  roles: Role[];
  /** `failed`: the provider refused (final); `inconclusive`: it could not answer now (rate limit, outage, network), so nothing was learned. */
  status: "ok" | "failed" | "inconclusive";
  failure?: LiveCheckFailure;
  /** One line for people: what happened and, when it failed, the fix. */
  message: string;
}

export interface LiveCheckOptions {
  /** The roles that use this provider and model with these settings. */
  roles: readonly Role[];
  /** The environment variable the key came from, named in a refused-key report. */
  keyEnv?: string;
  /** The model to suggest instead of one that is not served. */
  replacement?: string;
  signal?: AbortSignal;
}

/** A JSON answer for the roles that ask for structured output (planner, evaluator, judge). */
const checkOutput = {
  name: "model_check",
  schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false },
};
/** A tool offered and never needed, for the worker, whose calls always carry tools. */
const checkTool = {
  name: "model_check_noop",
  description: "Does nothing. Offered only to check that this model accepts tools; do not call it.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
};

/**
 * One minimal call with a role's real settings (its effort, temperature,
 * max tokens; tools for a worker, structured output for the others), so a
 * retired model, a bad key, a refused parameter or a missing capability is
 * reported at the start with its fix, not as the first step's failure.
 */
export async function checkModelLive(provider: ModelProvider, options: LiveCheckOptions): Promise<LiveModelCheck> {
  const roles = [...options.roles];
  const request: ModelRequest = {
    role: roles[0] ?? "worker",
    system: "Rein is checking that this model answers before a run starts.",
    messages: [{ role: "user", content: [{ type: "text", text: 'Answer with {"ok": true}.' }] }],
    ...(roles.includes("worker") ? { tools: [checkTool] } : {}),
    ...(roles.some((role) => role !== "worker") ? { output: checkOutput } : {}),
  };
  const base = { provider: provider.name, model: provider.model, roles };
  try {
    await provider.complete(request, options.signal ? { signal: options.signal } : {});
    return { ...base, status: "ok", message: `${provider.name}/${provider.model} answered` };
  } catch (error) {
    // An answer that came back but did not parse still shows the request was accepted.
    if (ReinError.hasCode(error, "model_output_invalid"))
      return {
        ...base,
        status: "ok",
        message: `${provider.name}/${provider.model} answered (its reply did not parse, which a run repairs)`,
      };
    return { ...base, ...failureOf(error, provider, options) };
  }
}

function failureOf(
  error: unknown,
  provider: ModelProvider,
  options: LiveCheckOptions,
): Pick<LiveModelCheck, "status" | "failure" | "message"> {
  const details = ReinError.isInstance(error) ? error.details : {};
  const status = typeof details.status === "number" ? details.status : undefined;
  const reason = typeof details.reason === "string" ? details.reason : undefined;
  const said = String(details.providerMessage ?? errorMessage(error));
  const what = `${provider.name}/${provider.model}: ${status !== undefined ? `HTTP ${status}` : (reason ?? "failed")}${details.errorType ? ` ${details.errorType}` : ""}: ${said}`;
  const role = options.roles[0] ?? "worker";
  const failed = (failure: LiveCheckFailure, fix: string) => ({ status: "failed" as const, failure, message: `${what}; ${fix}` });

  if (reason === "not_found" || status === 404) {
    return failed(
      "model_not_served",
      `the model is retired, misspelled or not open to this key; use ${options.replacement ?? "a model `rein models` lists"}`,
    );
  }
  if (reason === "authentication" || status === 401) {
    return failed("key_refused", `the key was refused; set a valid key in ${options.keyEnv ?? "the provider's apiKeyEnv"}`);
  }
  if (reason === "permission" || status === 403)
    return failed("no_access", "this key may not use this model; ask the provider for access, or choose another model");
  if (reason === "quota_exhausted")
    return failed("quota_exhausted", "the account's quota or spend limit is used up; raise it with the provider");
  if (reason === "invalid_request" || status === 400 || status === 422) return refusal(said, role, failed);
  if (ReinError.isInstance(error) && error.code !== "model_error") return failed("request_refused", "fix the setting it names");
  return { status: "inconclusive", message: `${what}; could not be checked now (the provider did not answer), so the command goes on` };
}

/** A 400 names what it refused; the fix is to the role's setting that sent it. */
function refusal(
  said: string,
  role: Role,
  failed: (failure: LiveCheckFailure, fix: string) => Pick<LiveModelCheck, "status" | "failure" | "message">,
) {
  if (/temperature|top_p|top_k/i.test(said)) return failed("parameter_refused", `remove roles.${role}.temperature`);
  // Before effort: OpenAI's refusal of function tools on Chat Completions names reasoning_effort too.
  if (/tool|function/i.test(said))
    return failed(
      "capability_missing",
      "the model does not take tools as Rein sends them; choose a model whose catalogue entry says it does (`rein models`)",
    );
  if (/effort|reasoning|thinking/i.test(said))
    return failed("parameter_refused", `change or remove roles.${role}.effort (\`rein models\` lists the efforts the model takes)`);
  if (/max_tokens|max_output_tokens|max_completion_tokens/i.test(said))
    return failed("parameter_refused", `lower roles.${role}.maxTokens to the model's max output (\`rein models\`)`);
  if (/output_config|response_format|text\.format|json_schema|structured/i.test(said)) {
    return failed(
      "capability_missing",
      "the model does not take structured output as Rein asks for it; choose another model (`rein models`)",
    );
  }
  return failed("request_refused", "check the role's settings against `rein models`");
}
