// Letters from other scripts that look like Latin ones; attackers swap them in
// to slip "SYSTEM" or "ignore previous instructions" past a plain match.
const HOMOGLYPHS: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  ԁ: "d",
  һ: "h",
  ӏ: "l",
  ԛ: "q",
  ԝ: "w",
  α: "a",
  β: "b",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ϲ: "c",
  ı: "i",
  ℓ: "l",
  // Small capitals, which NFKC leaves alone: ꜱʏꜱᴛᴇᴍ.
  ᴀ: "a",
  ʙ: "b",
  ᴄ: "c",
  ᴅ: "d",
  ᴇ: "e",
  ꜰ: "f",
  ɢ: "g",
  ʜ: "h",
  ɪ: "i",
  ᴊ: "j",
  ᴋ: "k",
  ʟ: "l",
  ᴍ: "m",
  ɴ: "n",
  ᴏ: "o",
  ᴘ: "p",
  ʀ: "r",
  ꜱ: "s",
  ᴛ: "t",
  ᴜ: "u",
  ᴠ: "v",
  ᴡ: "w",
  ʏ: "y",
  ᴢ: "z",
};

// Combining marks: stacked on letters (S̶Y̶S̶T̶E̶M̶, or a grapheme joiner between them) they hide a word from a plain match.
const COMBINING = /\p{M}/gu;

/**
 * A lower-cased, NFKC-normalized, mark-stripped, homoglyph-folded copy of a text for
 * pattern matching, with a map back to the original so a match can be
 * neutralized where it really is. Fullwidth `ＳＹＳＴＥＭ：` folds to
 * `system:`; Cyrillic `ѕуѕtеm` folds to `system`.
 */
export interface FoldedText {
  text: string;
  /** start[i]: index in the original of the character that produced folded char i. */
  start: number[];
  /** end[i]: index just past that original character. */
  end: number[];
}

export function fold(original: string): FoldedText {
  let text = "";
  const start: number[] = [];
  const end: number[] = [];
  let index = 0;
  for (const char of original) {
    const next = index + char.length;
    // Most tool output is ASCII, which needs no normalization: only the rest pays for it.
    const folded = char.charCodeAt(0) < 0x80 ? char.toLowerCase() : foldCharacter(char);
    for (let unit = 0; unit < folded.length; unit += 1) {
      start.push(index);
      end.push(next);
    }
    text += folded;
    index = next;
  }
  return { text, start, end };
}

function foldCharacter(char: string): string {
  const plain = char.normalize("NFKD").replace(COMBINING, "").normalize("NFKC").toLowerCase();
  return [...plain].map((piece) => HOMOGLYPHS[piece] ?? piece).join("");
}

/** The original span [from, to) for a folded span. */
export function originalSpan(folded: FoldedText, from: number, to: number): [number, number] {
  const first = folded.start[from] ?? folded.end.at(-1) ?? 0;
  const last = to > from ? (folded.end[to - 1] ?? first) : first;
  return [first, last];
}

/**
 * A regex source for a word whose letters may be split by up to two
 * separators ("s y s t e m", "s.y.s.t.e.m"), with no letter directly before.
 */
export function spacedWord(word: string): string {
  const letters = [...word].map((letter) => letter.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return `(?<![a-z0-9])${letters.join("[\\s._*\\-]{0,2}")}`;
}
