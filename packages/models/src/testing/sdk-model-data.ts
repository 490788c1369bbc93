import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** What an installed SDK says of its provider's models: the ids it types and the day each is shut down. */
export interface SdkModelData {
  provider: "anthropic" | "openai";
  /** The files read, inside the installed package. */
  files: string[];
  /** Every model id the SDK's types list. */
  models: ReadonlySet<string>;
  /** Model id → the day it stops being served (YYYY-MM-DD), as the SDK ships it. */
  shutdowns: ReadonlyMap<string, string>;
}

const packages = { anthropic: "@anthropic-ai/sdk", openai: "openai" } as const;

/** The first of `candidates` (paths inside the package) that the installed package has: its TypeScript source, else its compiled form. */
function packageFile(packageDir: string, candidates: string[]): string {
  const found = candidates.map((candidate) => join(packageDir, candidate)).find((path) => existsSync(path));
  if (!found)
    throw new Error(`none of ${candidates.join(", ")} is in ${packageDir}: the SDK moved its model data; update sdk-model-data.ts`);
  return found;
}

const months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "November 30th, 2026" → "2026-11-30". */
function isoDay(written: string): string {
  const match = /^([A-Z][a-z]+) (\d{1,2})(?:st|nd|rd|th)?, (\d{4})$/.exec(written.trim());
  const month = match ? months.indexOf(match[1] as string) + 1 : 0;
  if (!match || month === 0) throw new Error(`cannot read the date "${written}"`);
  return `${match[3]}-${String(month).padStart(2, "0")}-${(match[2] as string).padStart(2, "0")}`;
}

/** The quoted members of a `export type Name = | 'a' | 'b' …;` union. */
function unionMembers(source: string, name: string): string[] {
  const start = source.indexOf(`export type ${name} =`);
  if (start < 0) return [];
  const end = source.indexOf(";", start);
  return [...source.slice(start, end).matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
}

/**
 * Reads the installed SDK's own model data, never a copy: Anthropic's
 * `internal/data/deprecated-models` (end-of-life dates) and `Model` union;
 * OpenAI's `resources/shared` ("Announced shutdown date" per deprecated
 * model, in the doc comment of `ChatModel`) and its model unions.
 */
export function installedSdkModelData(provider: "anthropic" | "openai"): SdkModelData {
  const packageDir = dirname(createRequire(import.meta.url).resolve(packages[provider]));
  if (provider === "anthropic") {
    const deprecated = packageFile(packageDir, [
      "src/internal/data/deprecated-models.ts",
      "internal/data/deprecated-models.js",
      "internal/data/deprecated-models.mjs",
    ]);
    const messages = packageFile(packageDir, ["src/resources/messages/messages.ts", "resources/messages/messages.d.ts"]);
    const shutdowns = new Map(
      [...readFileSync(deprecated, "utf8").matchAll(/'([^']+)':\s*'([^']+)'/g)].map((match) => [
        match[1] as string,
        isoDay(match[2] as string),
      ]),
    );
    return { provider, files: [deprecated, messages], models: new Set(unionMembers(readFileSync(messages, "utf8"), "Model")), shutdowns };
  }
  const sharedFile = packageFile(packageDir, ["src/resources/shared.ts", "resources/shared.d.ts"]);
  const shared = readFileSync(sharedFile, "utf8");
  const comment = /\/\*\*\s*\n\s*\* Deprecated values:([\s\S]*?)\*\/\s*export type ChatModel/.exec(shared)?.[1] ?? "";
  const text = comment.replace(/^\s*\* ?/gm, "");
  const shutdowns = new Map<string, string>();
  for (const bullet of text.split(/\n- /)) {
    const day = /Announced shutdown date:\s*(\d{4}-\d{2}-\d{2})/.exec(bullet.replace(/\s+/g, " "))?.[1];
    if (day) for (const match of bullet.matchAll(/"([^"]+)"/g)) shutdowns.set(match[1] as string, day);
  }
  if (shutdowns.size === 0) throw new Error(`${sharedFile} has no "Announced shutdown date" the test can read: update sdk-model-data.ts`);
  return {
    provider,
    files: [sharedFile],
    models: new Set([...unionMembers(shared, "ChatModel"), ...unionMembers(shared, "AllModels")]),
    shutdowns,
  };
}

/** The day `model` (or the base of a dated snapshot) was shut down by `today`, per the SDK; undefined when it is still served. */
export function shutDownBy(data: SdkModelData, model: string, today: string): string | undefined {
  const day = data.shutdowns.get(model);
  return day !== undefined && day <= today ? day : undefined;
}
