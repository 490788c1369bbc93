import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/**
 * What a thinking block's signature records, as the documentation says the
 * real one does ("The block's signature records both conditions": the model
 * that produced it and the conversation before it, thinking page,
 * https://platform.claude.com/docs/en/build-with-claude/thinking#preserved-thinking),
 * plus where the block sat in its response, so a reordered or partly
 * dropped turn is caught.
 */
export const SignedThinking = z.object({
  /** The model that produced the block. */
  model: z.string(),
  /** Hash of the system prompt, tools and messages before the block's turn. */
  prefix: z.string(),
  /** The response the block came in, and its place among that response's thinking blocks. */
  response: z.string(),
  ordinal: z.number().int().nonnegative(),
  count: z.number().int().positive(),
  /** The full thinking, as the model reads it when the block comes back. */
  thinking: z.string(),
  /** What the response showed of it: "summarized" shows the text, so it must come back unchanged; "omitted" showed "". */
  display: z.enum(["summarized", "omitted"]),
  redacted: z.boolean(),
});
export type SignedThinking = z.infer<typeof SignedThinking>;

/**
 * Signs thinking blocks with an HMAC under the emulator's own secret, so
 * that only blocks it produced verify, and any byte changed in one (its
 * text, its signature, its place) makes it fail, as the API's encrypted
 * signature does.
 */
export class ThinkingSigner {
  constructor(private readonly secret: string) {}

  sign(payload: SignedThinking): string {
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${body}.${this.mac(body)}`;
  }

  /** The payload a signature carries, or undefined for one this emulator did not sign (tampered, forged, another account's). */
  verify(signature: string): SignedThinking | undefined {
    const [body, mac] = signature.split(".");
    if (!body || !mac || signature.split(".").length !== 2) return undefined;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      return SignedThinking.parse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
    } catch {
      return undefined;
    }
  }

  private mac(body: string): string {
    return createHmac("sha256", this.secret).update(body).digest("base64url");
  }
}
