// C0 and C1 controls except \t and \n (\r is folded into \n first), and DEL.
// Matching control characters is this regex's whole purpose.
// biome-ignore lint/suspicious/noControlCharactersInRegex: intentional
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

// Characters that render as nothing: zero-width spaces and joiners, bidi
// overrides and isolates (which reorder what a reader sees), the BOM, soft
// hyphens, and the Unicode tag block, which can smuggle invisible ASCII.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

export interface StrippedText {
  text: string;
  controlRemoved: number;
  invisibleRemoved: number;
}

/** Removes control and invisible characters, keeping newlines and tabs. */
export function stripControlCharacters(text: string): StrippedText {
  let controlRemoved = 0;
  let invisibleRemoved = 0;
  const stripped = text
    .replace(/\r\n?/g, "\n")
    .replace(CONTROL, () => {
      controlRemoved += 1;
      return "";
    })
    .replace(INVISIBLE, () => {
      invisibleRemoved += 1;
      return "";
    });
  return { text: stripped, controlRemoved, invisibleRemoved };
}
