import { pathToFileURL } from "node:url";

/**
 * Compiled Rein (dist/) runs without a TypeScript loader; a user's tools.ts
 * gets tsx's, registered on first need. The retry uses a fresh URL because
 * the loader remembers the failed one.
 */
export async function importTypeScript(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  try {
    return await import(url);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
    const { register } = await import("tsx/esm/api");
    register();
    return await import(`${url}?typescript`);
  }
}
