import { z } from "zod";

/** The name of an environment variable (config names where a key is, never the key). */
export const EnvName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, "expected the name of an environment variable, e.g. ANTHROPIC_API_KEY, not a key");
