import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { OpenAIEmulatorRefusal, openAIDocs } from "./emulator-refusal.ts";

/** What a sealed reasoning item vouches for. */
interface Sealed {
  model: string;
  summary: string[];
}

/**
 * The emulator's stand-in for OpenAI's encrypted reasoning content: the
 * item's model and summary, authenticated with an HMAC under a key only
 * this emulator holds, so a reasoning item sent back altered (its id, its
 * summary, its content), to another model, or invented is refused as
 * OpenAI refuses content it cannot verify (`invalid_encrypted_content`).
 */
export class ReasoningSeal {
  private readonly key = randomBytes(32);

  seal(itemId: string, sealed: Sealed): string {
    const payload = Buffer.from(JSON.stringify(sealed)).toString("base64url");
    return `gAAA${payload}.${this.tag(itemId, payload)}`;
  }

  /**
   * Checks a reasoning item sent back in `input`; returns the model that
   * made it. `summary` is the item's summary texts as sent.
   */
  open(itemId: string, encrypted: string, summary: string[], requestModel: string): string {
    const refuse = (reason: string): never => {
      const shown = encrypted.length > 12 ? `${encrypted.slice(0, 4)}...${encrypted.slice(-4)}` : encrypted;
      throw new OpenAIEmulatorRefusal({
        message: `The encrypted content for item ${itemId} (${shown}) could not be verified. Reason: ${reason}`,
        code: "invalid_encrypted_content",
        rule: openAIDocs.reasoning,
      });
    };
    const match = encrypted.match(/^gAAA([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/);
    if (!match?.[1] || !match[2]) return refuse("Encrypted content could not be decrypted or parsed.");
    const expected = Buffer.from(this.tag(itemId, match[1]));
    const given = Buffer.from(match[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return refuse("Encrypted content could not be decrypted or parsed.");
    const sealed = JSON.parse(Buffer.from(match[1], "base64url").toString("utf8")) as Sealed;
    if (JSON.stringify(sealed.summary) !== JSON.stringify(summary))
      return refuse("the item's summary does not match its encrypted content.");
    if (sealed.model !== requestModel) return refuse(`it was produced by ${sealed.model}, not by ${requestModel}.`);
    return sealed.model;
  }

  private tag(itemId: string, payload: string): string {
    return createHmac("sha256", this.key).update(`${itemId}\n${payload}`).digest("base64url");
  }
}
