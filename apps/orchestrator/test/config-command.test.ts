import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkRoleModels, loadConfig, ReinConfig } from "@rein/core";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../src/cli/config-commands.ts";

const README = resolve(import.meta.dirname, "../../../README.md");

/** The first ```json block after "### Configuration" in the README. */
function readmeConfig(): Record<string, unknown> {
  const text = readFileSync(README, "utf8");
  const section = text.slice(text.indexOf("### Configuration"));
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  return JSON.parse(block as string) as Record<string, unknown>;
}

describe("rein config schema", () => {
  it("describes every key the loader knows, and closes every object as the loader does", () => {
    const schema = configJsonSchema();
    const properties = schema.properties as Record<string, { type?: string; properties?: object; additionalProperties?: unknown }>;
    expect(Object.keys(properties).sort()).toEqual(["$schema", ...Object.keys(ReinConfig.shape)].sort());
    expect(properties.tools?.additionalProperties).toBe(false);
    expect(JSON.stringify(schema)).not.toContain('"additionalProperties":{}');
  });

  it("covers the README's example config, which the loader accepts with its $schema line", () => {
    const example = readmeConfig();
    expect(example.$schema).toBe("./rein.schema.json");
    const properties = configJsonSchema().properties as Record<string, unknown>;
    for (const key of Object.keys(example)) expect(properties, key).toHaveProperty(key);
    const file = join(mkdtempSync(join(tmpdir(), "rein-readme-config-")), "rein.config.json");
    writeFileSync(file, JSON.stringify(example));
    const config = loadConfig({ file, env: {} });
    expect(config.roles.worker.model).toBe("gpt-6.2-sol");
    // Its models are ones the catalogue knows and would let `rein run` start with.
    expect(checkRoleModels(config)).toEqual([]);
  });
});
