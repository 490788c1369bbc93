import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkRoleModels } from "@rein/models";
import { loadConfig, ReinConfig } from "@rein/runtime";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../src/cli/config-commands.ts";

const ROOT = resolve(import.meta.dirname, "../../..");

/** The config examples a user copies: the README's short one and the reference page's full one. */
const EXAMPLES = [
  { file: "README.md", heading: "## Configuration" },
  { file: "docs/configuration.md", heading: "## An example with every section" },
];

/** The first ```json block after `heading` in `file`. */
function configExample(file: string, heading: string): Record<string, unknown> {
  const text = readFileSync(join(ROOT, file), "utf8");
  const start = text.indexOf(`${heading}\n`);
  if (start === -1) throw new Error(`${file} has no "${heading}" section; expected the config example under it`);
  const block = /```json\n([\s\S]*?)```/.exec(text.slice(start))?.[1];
  if (block === undefined) throw new Error(`${file} has no json block after "${heading}"`);
  return JSON.parse(block) as Record<string, unknown>;
}

describe("rein config schema", () => {
  it("describes every key the loader knows, and closes every object as the loader does", () => {
    const schema = configJsonSchema();
    const properties = schema.properties as Record<string, { type?: string; properties?: object; additionalProperties?: unknown }>;
    expect(Object.keys(properties).sort()).toEqual(["$schema", ...Object.keys(ReinConfig.shape)].sort());
    expect(properties.tools?.additionalProperties).toBe(false);
    expect(JSON.stringify(schema)).not.toContain('"additionalProperties":{}');
  });

  it.each(EXAMPLES)("covers the example config of $file, which the loader accepts with its schema line", ({ file, heading }) => {
    const example = configExample(file, heading);
    expect(example.$schema).toBe("./rein.schema.json");
    const properties = configJsonSchema().properties as Record<string, unknown>;
    for (const key of Object.keys(example)) expect(properties, key).toHaveProperty(key);
    const path = join(mkdtempSync(join(tmpdir(), "rein-doc-config-")), "rein.config.json");
    writeFileSync(path, JSON.stringify(example));
    const config = loadConfig({ file: path, env: {} });
    expect(config.roles.worker.model).toBe("gpt-6.2-sol");
    // Its models are ones the catalogue knows and would let `rein run` start with.
    expect(checkRoleModels(config)).toEqual([]);
  });
});
