import { z } from "zod";

/** A content hash as Rein writes it: `sha256:` and 64 hex digits. */
export const HashString = z.string().regex(/^sha256:[0-9a-f]{64}$/, "expected a sha256:<64 hex> hash");
