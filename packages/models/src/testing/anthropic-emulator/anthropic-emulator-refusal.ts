/** The pages each rule of the emulator comes from. */
export const docs = {
  errors: "https://platform.claude.com/docs/en/api/errors",
  versioning: "https://platform.claude.com/docs/en/api/versioning",
  messages: "https://platform.claude.com/docs/en/api/messages",
  models: "https://platform.claude.com/docs/en/models/overview",
  whatsNewSonnet55: "https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5",
  migrationSonnet55: "https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide",
  thinking: "https://platform.claude.com/docs/en/build-with-claude/thinking",
  preservedThinking: "https://platform.claude.com/docs/en/build-with-claude/thinking#preserved-thinking",
  effort: "https://platform.claude.com/docs/en/build-with-claude/effort",
  defineTools: "https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools",
  handleToolCalls: "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls",
  structuredOutputs: "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations",
  complexity: "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#schema-complexity-limits",
  promptCaching: "https://platform.claude.com/docs/en/build-with-claude/prompt-caching",
} as const;

export type ErrorType = "invalid_request_error" | "authentication_error" | "not_found_error";

/** A request the emulator refuses: the documented status and error type, the message, and which rule of which page. */
export interface Refusal {
  refused: true;
  status: number;
  type: ErrorType;
  message: string;
  /** A short name for the rule, e.g. `tool_choice.forced`. */
  rule: string;
  /** The page the rule comes from. */
  docs: string;
}

export function refusal(rule: string, status: number, message: string, page: string, type: ErrorType = "invalid_request_error"): Refusal {
  return { refused: true, status, type, message, rule, docs: page };
}

export const isRefusal = (value: unknown): value is Refusal =>
  typeof value === "object" && value !== null && (value as { refused?: unknown }).refused === true;
