import { spacedWord as w } from "./fold.ts";

/** `neutralize`: rewritten so it no longer reads as what it imitates. `flag`: kept as data, but reported. */
export type PatternAction = "neutralize" | "flag";

export interface SuspiciousPattern {
  flag: string;
  label: string;
  action: PatternAction;
  /** Matched against the folded (lower-cased, NFKC, homoglyph-folded) text. */
  pattern: RegExp;
}

const gap = "[^a-z0-9]{1,6}";
const anyOf = (...words: string[]): string => `(?:${words.map(w).join("|")})`;

/**
 * What tool output must not be able to pass for: messages of another role,
 * chat-template control tokens, the runtime's own tags, approvals. And what
 * it may contain but only as reported data: instructions aimed at the model.
 */
export const SUSPICIOUS_PATTERNS: readonly SuspiciousPattern[] = [
  {
    flag: "special_token",
    label: "chat-template token",
    action: "neutralize",
    pattern: /<\|[^|<>\n]{1,40}\|>|\[\/?inst\]|<<\/?sys>>|<\/?s>(?=\s*\[inst\])/g,
  },
  {
    flag: "role_tag",
    label: "role or tool tag",
    action: "neutralize",
    pattern: new RegExp(
      `<\\s*/?\\s*${anyOf("system", "user", "assistant", "human", "developer", "tool_result", "tool_call", "tool_use", "function_results", "function_calls", "function_call", "tool", "instructions", "instruction", "approval", "im_start", "im_end")}[^<>\\n]{0,80}>`,
      "g",
    ),
  },
  {
    flag: "role_marker",
    label: "role marker",
    action: "neutralize",
    pattern: new RegExp(
      // "Read-only file system: '/x'" is how an OS error reads, not a speaker; after any other word it may be an injection.
      `(?<!(?:file|operating)[ \\t]{1,3})${anyOf("system", "assistant", "human", "developer")}\\s{0,3}:|(?:^|\\n)[\\s>#*\\-\\[]*${anyOf("user", "ai", "tool", "model")}\\]?\\s{0,3}:`,
      "g",
    ),
  },
  {
    flag: "approval_claim",
    label: "approval claim",
    action: "neutralize",
    pattern: new RegExp(
      [
        `${w("the")}${gap}(?:${w("user")}|${w("human")}|${w("operator")}|${w("admin")})${gap}(?:${w("has")}${gap})?(?:${w("already")}${gap})?${anyOf("approved", "authorized", "authorised", "confirmed", "granted")}`,
        `${anyOf("approved", "authorized", "authorised")}${gap}${w("by")}${gap}(?:${w("the")}${gap})?${anyOf("user", "admin", "administrator", "operator", "human", "owner", "reviewer")}`,
        `\\[\\s*${anyOf("approved", "approval granted", "authorized")}\\s*\\]`,
        `${anyOf("approval", "permission", "authorization")}${gap}(?:${w("is")}${gap}|${w("has")}${gap}${w("been")}${gap})?${anyOf("granted", "given", "confirmed", "received")}`,
        `${anyOf("approval_id", "approvalid", "approval id")}\\s{0,3}[:=]`,
      ].join("|"),
      "g",
    ),
  },
  {
    flag: "instruction_like",
    label: "instruction",
    action: "flag",
    pattern: new RegExp(
      [
        `${anyOf("ignore", "disregard", "forget", "override", "bypass", "skip")}${gap}(?:(?:${anyOf("all", "any", "the", "your", "every", "of")})${gap})*(?:${anyOf("previous", "prior", "above", "earlier", "preceding", "system", "original", "existing", "safety")}${gap})?${anyOf("instructions", "instruction", "directions", "prompts", "prompt", "messages", "rules", "guidelines", "context", "constraints", "everything")}`,
        `${w("you")}${gap}(?:${anyOf("must", "should", "need to", "have to", "will")})${gap}(?:${w("now")}${gap})?${anyOf("call", "run", "execute", "invoke", "use", "delete", "restart", "send", "ignore")}`,
        `${w("you")}${gap}${w("are")}${gap}${w("now")}(?![a-z])`,
        `${w("new")}${gap}${anyOf("instructions", "instruction", "task", "orders")}\\s{0,3}:`,
        `${anyOf("call", "invoke", "run", "execute")}${gap}${w("the")}${gap}[a-z0-9_.-]+${gap}${w("tool")}`,
        `${anyOf("do not", "don't", "never")}${gap}${anyOf("tell", "inform", "alert", "notify")}${gap}${w("the")}${gap}${w("user")}`,
        `${anyOf("ignore", "disregard", "forget")}${gap}(?:${anyOf("all", "the", "everything")}${gap})?${anyOf("above", "previous", "prior", "before", "earlier")}(?![a-z])`,
        `${w("from")}${gap}${w("now")}${gap}${w("on")}(?![a-z])`,
        `${anyOf("pretend", "act", "roleplay", "behave")}${gap}(?:${anyOf("to be", "you are", "as if", "as")})${gap}`,
        `${anyOf("reveal", "print", "show", "repeat", "output", "leak", "tell me")}${gap}(?:${anyOf("your", "the")}${gap})?(?:${anyOf("system", "hidden", "initial", "secret")}${gap})?${anyOf("prompt", "instructions", "password", "api key", "secret")}`,
        `${anyOf("developer mode", "jailbreak", "jailbroken", "do anything now", "dan mode")}`,
        // The same request in the languages public injection sets use most (accents are folded away).
        `${anyOf("ignoriere", "ignorieren", "vergiss", "vergessen")}${gap}(?:(?:${anyOf("alle", "alles", "die", "deine", "bisherigen", "vorherigen", "obigen", "vorigen")})${gap})*${anyOf("anweisungen", "anweisung", "instruktionen", "befehle", "regeln", "davor", "zuvor")}`,
        `${anyOf("ignore", "ignorer", "ignorez", "oublie", "oubliez")}${gap}(?:(?:${anyOf("toutes", "tous", "les", "tes", "vos")})${gap})*${anyOf("instructions", "consignes", "regles")}`,
        `${anyOf("ignora", "ignore", "olvida", "olvide", "dimentica")}${gap}(?:(?:${anyOf("todas", "todos", "las", "los", "tus", "sus", "le", "tutte", "as", "suas")})${gap})*${anyOf("instrucciones", "istruzioni", "instrucoes", "reglas", "regole")}`,
      ].join("|"),
      "g",
    ),
  },
  {
    // A markdown image or link whose URL carries data out when rendered: the classic exfiltration channel.
    flag: "exfiltration_link",
    label: "link carrying data",
    action: "flag",
    pattern: /!?\[[^\]\n]{0,200}\]\(\s*https?:\/\/[^\s)]+[?&][^\s)]*=[^\s)]*\)/g,
  },
];

/** Matches the fence's own marker word, so content cannot close or reopen a fence. */
export const FENCE_MARKER = new RegExp(`${w("untrusted")}[^a-z0-9]{0,3}${w("data")}`, "g");
