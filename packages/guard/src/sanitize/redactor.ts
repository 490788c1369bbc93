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
// Below this, a value found only in pieces or as a base64 fragment could be chance.
const MIN_SPLIT_LENGTH = 10;
// What may sit between two characters of a secret broken across lines: whitespace or an escaped (or twice-escaped) newline.
const SPLIT_GAP = "(?:\\s|\\\\{1,2}[nrt]){0,6}";

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

// An escape sequence in JSON text: what the prefilter reads as a separator.
const JSON_ESCAPE = /\\(?:u[0-9a-fA-F]{4}|.)/g;
// With escapes replaced, a JSON string is a quote, what is not a quote, a quote; all else is outside one.
const OUTSIDE_STRINGS = /"[^"]*"|[^"]+/g;

/** The same pattern without the g flag, compiled once, for a yes/no test that keeps no lastIndex. */
const probeOf = (pattern: RegExp): RegExp => new RegExp(pattern.source, pattern.flags.replace("g", ""));
const CARD_PROBE = probeOf(CARD_CANDIDATE);

/**
 * Replaces known secret values and personal data with fixed marks. It runs
 * over observations, trace payloads and log lines, so a value a tool saw
 * never reaches the model, Redis or the logs verbatim.
 */
export class Redactor {
  private readonly secretNeedles: string[];
  private readonly splitSecrets: RegExp[];
  private readonly splitProbes: RegExp[];
  private readonly patterns: RegExp[];
  /** Probes of the built-in detectors that raw JSON text can show; a configured pattern has none (see mayMatch). */
  private readonly patternProbes: (RegExp | null)[];
  private readonly cards: boolean;

  constructor(options: RedactorOptions = {}) {
    const needles = new Set<string>();
    const split = new Set<string>();
    for (const secret of options.secrets ?? []) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      for (const form of secretEncodings(secret)) needles.add(form);
      if (secret.length >= MIN_SPLIT_LENGTH) for (const form of splittable(secret)) split.add(form);
    }
    // Longest first, so a secret that contains another is removed whole.
    this.secretNeedles = [...needles].sort((a, b) => b.length - a.length);
    this.splitSecrets = [...split].map(splitPattern);
    this.splitProbes = this.splitSecrets.map(probeOf);
    const pii = options.pii ?? {};
    this.patterns = [
      ...(pii.emails === false ? [] : [EMAIL]),
      ...(pii.nationalIds === false ? [] : [US_SSN]),
      ...(options.patterns ?? []).map((source) => new RegExp(source, "g")),
    ];
    this.cards = pii.cards !== false;
    // A configured pattern may be anchored to a whole string value, which raw JSON text would hide: it is never prefiltered.
    this.patternProbes = this.patterns.map((pattern) => (pattern === EMAIL || pattern === US_SSN ? probeOf(pattern) : null));
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
    for (const pattern of this.splitSecrets) {
      result = result.replace(pattern, () => {
        secrets += 1;
        return SECRET_MARK;
      });
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

  /** Whether any secret or detector could match somewhere in JSON text `json`; false means redaction would change nothing. */
  private mayMatch(json: string): boolean {
    // Secrets are searched in their JSON-escaped form too (secretEncodings), and split ones across escaped newlines.
    if (this.secretNeedles.some((needle) => json.includes(needle))) return true;
    if (this.splitProbes.some((probe) => probe.test(json))) return true;
    // The detectors want no word character before a number: in JSON text the letter of an escape
    // (`\n4111…`, `\u0007…`) is one, where the string itself holds a control character.
    const text = json.includes("\\") ? json.replace(JSON_ESCAPE, " ") : json;
    // Only strings are redacted: a digit run that is a JSON number (a duration, a schema's
    // 9007199254740991) is no candidate. Looked at only once a probe matched the whole text.
    let strings: string | undefined;
    const inStrings = (probe: RegExp): boolean => {
      if (!probe.test(text)) return false;
      strings ??= text.replace(OUTSIDE_STRINGS, (run) => (run.startsWith('"') ? run : " "));
      return probe.test(strings);
    };
    if (this.cards && inStrings(CARD_PROBE)) return true;
    return this.patterns.some((pattern, index) => {
      const probe = this.patternProbes[index];
      if (!probe) return true;
      if (pattern === EMAIL) return text.includes("@") && probe.test(text);
      return inStrings(probe);
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

/**
 * The forms of a secret that are searched for (and redacted): as is, URL-,
 * JSON-, base64- and hex-encoded, and the base64 characters it yields at any
 * offset inside a longer encoded blob.
 */
export function secretEncodings(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    bytes.toString("base64"),
    bytes.toString("base64url"),
    ...[bytes.toString("hex"), bytes.toString("hex").toUpperCase(), ...base64Cores(bytes)].filter(
      (form) => form.length >= MIN_SPLIT_LENGTH,
    ),
  ].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * The base64 characters that depend on the secret alone, at each of the
 * three byte offsets it can sit at inside a longer encoded blob: a secret
 * inside base64-encoded JSON or a basic-auth header is not base64(secret).
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    cores.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return cores;
}

/** Forms worth finding when broken across lines or spaced out: the value itself and its plain base64 (which tools wrap at 76 columns). */
function splittable(secret: string): string[] {
  return [secret, Buffer.from(secret).toString("base64").replace(/=+$/, "")];
}

/** The value with up to a few whitespace characters or escaped newlines between any two of its characters. */
function splitPattern(form: string): RegExp {
  const characters = [...form].map((character) => character.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(characters.join(SPLIT_GAP), "g");
}
