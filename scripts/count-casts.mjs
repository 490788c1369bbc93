#!/usr/bin/env node
// Counts the type assertions (`x as T`, `<T>x`; not `as const`) in
// packages/*/src and apps/*/src with the TypeScript parser, for
// docs/code-shape.md. `--list` prints each one with its file and line.
// A chained `x as unknown as T` is two.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const ts = createRequire(join(root, "package.json"))("typescript");

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name === "dist" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const files = ["packages", "apps"].flatMap((top) =>
  readdirSync(join(root, top))
    .map((name) => join(root, top, name, "src"))
    .filter((src) => statSync(src, { throwIfNoEntry: false })?.isDirectory())
    .flatMap(sourceFiles),
);

const casts = [];
for (const file of files) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && node.type.getText(source) !== "const") {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      casts.push(`${relative(root, file)}:${line + 1}: ${node.getText(source).replace(/\s+/g, " ").slice(0, 120)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
if (process.argv.includes("--list")) console.log(casts.join("\n"));
console.log(`${casts.length} casts in ${files.length} source files`);
