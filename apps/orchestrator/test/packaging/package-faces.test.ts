import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const ROOT = resolve(import.meta.dirname, "../../../..");
// About 60: a face a newcomer can read at once (docs/architecture.md, "Packages").
const MOST_NAMES = 60;

const PackageJson = z.object({
  name: z.string(),
  exports: z.record(z.string(), z.object({ "@rein/source": z.string() }).loose()),
});

/** Every face of every package: its import path and the source file that lists it. */
function faces(): { face: string; file: string }[] {
  return readdirSync(join(ROOT, "packages")).flatMap((dir) => {
    const packageDir = join(ROOT, "packages", dir);
    const manifest = PackageJson.parse(JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")));
    return Object.entries(manifest.exports).map(([subpath, conditions]) => ({
      face: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
      file: join(packageDir, conditions["@rein/source"]),
    }));
  });
}

/** The names a face exports, listed by name: `export *` would hide them, so it counts as a failure. */
function exportedNames(source: string): string[] {
  if (/export\s*\*/.test(source)) return ["export *"];
  const listed = [...source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((match) =>
    (match[1] ?? "")
      .split(",")
      .map((name) => name.replace(/^\s*type\s+/, "").trim())
      .filter(Boolean),
  );
  const declared = [...source.matchAll(/export\s+(?:async\s+)?(?:const|function|class|interface|type|enum)\s+(\w+)/g)].map(
    (match) => match[1] ?? "",
  );
  return [...new Set([...listed, ...declared])];
}

describe("package faces", () => {
  const all = faces();

  it("finds the faces of the workspace's packages", () => {
    expect(all.map((entry) => entry.face)).toEqual(expect.arrayContaining(["@rein/contracts", "@rein/tools", "@rein/controller"]));
  });

  it.each(all)("$face lists at most about 60 names, each by name", ({ file }) => {
    const names = exportedNames(readFileSync(file, "utf8"));
    expect(names).not.toContain("export *");
    expect(names.length).toBeGreaterThan(0);
    expect(names.length).toBeLessThanOrEqual(MOST_NAMES);
  });
});
