import { passesLuhn } from "./luhn.ts";

export interface RedactorOptions {
  /** Secret values to remove wherever they appear (also URL-, base64- and JSON-encoded). */
  secrets?: Iterable<string>;
  /** Extra regular expressions (config `redaction.patterns`) whose matches are PII. */
  patterns?: readonly string[];
  /** Built-in PII detectors. @defaultValue all on */
  pii?: { emails?: boolean; cards?: boolean; nationalIds?: boolean };
}

export interface RedactionResult {
  text: string;
  secrets: number;
  pii: number;
}

export const SECRET_MARK = "[REDACTED:secret]";
export const PII_MARK = "[REDACTED:pii]";

// Shorter values would redact ordinary words; a real credential is longer.
const MIN_SECRET_LENGTH = 6;

// Anchored at the start of a word: unanchored, every position of a long
// alphanumeric run (a hash, base64) is a fresh start, which is quadratic.
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// A content hash is never personal data; skipping them keeps redaction cheap on trace payloads full of them.
const HASH = /^sha256:[0-9a-f]{64}$/;
// Word boundaries on both sides: a digit run inside a hash or an id
// (`sha256:ab4111…`) is not a card number, and rewriting it would corrupt it.
const CARD_CANDIDATE = /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g;
// US SSN; area 000, 666 and 9xx, group 00 and serial 0000 are never issued.
const US_SSN = /(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])/g;

/**
 * Replaces known secret values and personal data with fixed marks. It runs
 * over observations, trace payloads and log lines, so a value a tool saw
 * never reaches the model, Redis or the logs verbatim.
 */
export class Redactor {
  private readonly secretNeedles: string[];
  private readonly patterns: RegExp[];
  private readonly cards: boolean;

  constructor(options: RedactorOptions = {}) {
    const needles = new Set<string>();
    for (const secret of options.secrets ?? []) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      for (const form of secretEncodings(secret)) needles.add(form);
    }
    // Longest first, so a secret that contains another is removed whole.
    this.secretNeedles = [...needles].sort((a, b) => b.length - a.length);
    const pii = options.pii ?? {};
    this.patterns = [
      ...(pii.emails === false ? [] : [EMAIL]),
      ...(pii.nationalIds === false ? [] : [US_SSN]),
      ...(options.patterns ?? []).map((source) => new RegExp(source, "g")),
    ];
    this.cards = pii.cards !== false;
  }

  redact(text: string): RedactionResult {
    let secrets = 0;
    let pii = 0;
    let result = text;
    for (const needle of this.secretNeedles) {
      if (!result.includes(needle)) continue;
      const parts = result.split(needle);
      secrets += parts.length - 1;
      result = parts.join(SECRET_MARK);
    }
    if (this.cards) {
      result = result.replace(CARD_CANDIDATE, (match) => {
        if (!passesLuhn(match.replace(/[ -]/g, ""))) return match;
        pii += 1;
        return PII_MARK;
      });
    }
    for (const pattern of this.patterns) {
      if (pattern === EMAIL && !result.includes("@")) continue;
      result = result.replace(pattern, () => {
        pii += 1;
        return PII_MARK;
      });
    }
    return { text: result, secrets, pii };
  }

  /** Every string inside a JSON-like value, redacted; keys are left alone. */
  redactValue<T>(value: T): T {
    return this.walk(value) as T;
  }

  /** For `new TraceLog(redis, keys, { redact: redactor.redactJson })`: parses, redacts strings, re-serializes, so the JSON stays valid. */
  // Most events hold nothing to redact: the raw text is checked first and
  // returned as is when no secret and no detector matches anywhere in it.
  readonly redactJson = (json: string): string => (this.mayMatch(json) ? JSON.stringify(this.walk(JSON.parse(json))) : json);

  /** Whether any secret or detector could match somewhere in `text`; false means redaction would change nothing. */
  private mayMatch(text: string): boolean {
    if (this.secretNeedles.some((needle) => text.includes(needle))) return true;
    if (this.cards && new RegExp(CARD_CANDIDATE.source).test(text)) return true;
    return this.patterns.some((pattern) => {
      // A configured pattern may be anchored to a whole string value, which raw JSON text would hide.
      if (pattern !== EMAIL && pattern !== US_SSN) return true;
      return pattern === EMAIL && !text.includes("@") ? false : new RegExp(pattern.source).test(text);
    });
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return HASH.test(value) ? value : this.redact(value).text;
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, this.walk(member)]));
    }
    return value;
  }
}

/** The forms of a secret that are searched for (and redacted): as is, URL-, JSON- and base64-encoded. */
export function secretEncodings(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64url"),
  ].filter((form) => form.length >= MIN_SECRET_LENGTH);
}
