import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileGlob } from "../../src/policy/glob-match.ts";
import { escapeGlob, splitGlob } from "../../src/policy/glob-literal.ts";
import { globContains, globsOverlap } from "../../src/policy/pattern-containment.ts";
import { resourceOverlaps, resourceWithin } from "../../src/policy/resource-match.ts";

describe("pattern containment", () => {
  it.each([
    ["src/**", "src/lib/**", true],
    ["src/**", "src/*", true],
    ["src/**", "src/a.ts", true],
    ["src/**", "src", true],
    ["**", "src/**", true],
    ["**", ".env", true],
    ["src/*", "src/a.ts", true],
    ["src/*", "src/*.ts", true],
    ["src/*.{ts,js}", "src/a.ts", true],
    ["{src,lib}/**", "lib/**", true],
    ["src/[a-z]*", "src/[b-c]x", true],
    ["src/[!.]*", "src/[a-c]", true],
    ["src/?", "src/[ab]", true],
    // The bug this function exists for: `*` matches the text `**`, never the pattern.
    ["src/*", "src/**", false],
    ["src/*", "src/*/x", false],
    ["*", "**", false],
    ["src/lib/**", "src/**", false],
    ["src/*.ts", "src/*", false],
    ["src/[ab]", "src/?", false],
    ["src/a", "src/[ab]", false],
    ["src/**", "**", false],
    ["src/**", "src/../etc/**", false],
    ["**/*.ts", "**", false],
  ])("%s contains %s: %s", (outer, inner, expected) => {
    expect(globContains(outer, inner)).toBe(expected);
  });

  it.each([
    ["secrets/**", "**", true],
    ["**/.env", "**", true],
    ["**/.env", "app/*", true],
    ["secrets/**", "src/**", false],
    ["**/.env", "src/*.ts", false],
    ["src/*.ts", "src/*.js", false],
    ["a*", "*b", true],
    ["[ab]", "[!ab]", false],
    ["[a-c]x", "[c-e]x", true],
  ])("%s overlaps %s: %s", (a, b, expected) => {
    expect(globsOverlap(a, b)).toBe(expected);
    expect(globsOverlap(b, a)).toBe(expected);
  });

  it("answers the narrow way when a question is too costly, and does so at once", () => {
    const wide = `${"{a,b}".repeat(8)}/${"*a".repeat(200)}`;
    const started = performance.now();
    expect(globContains(`${"*a".repeat(400)}/**`, wide)).toBe(false);
    expect(globsOverlap(`${"{c,d}".repeat(8)}/${"*b".repeat(200)}`, wide)).toBe(true);
    // A pattern past the brace limit cannot be read: contained in nothing, overlapping everything.
    expect(globContains("**", "{a,b}".repeat(12))).toBe(false);
    expect(globsOverlap("x", "{a,b}".repeat(12))).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

/**
 * The oracle: every path of up to three segments of up to two characters
 * from a, b and `*` (so the literal text `*` and `**` are paths too),
 * matched one by one with the glob matcher.
 */
const CHARS = ["a", "b", "*"];
const SEGMENTS = [...CHARS, ...CHARS.flatMap((first) => CHARS.map((second) => `${first}${second}`))];
const PATHS = [...SEGMENTS, ...SEGMENTS.flatMap((first) => SEGMENTS.map((second) => `${first}/${second}`))].flatMap((path) =>
  path.includes("/") ? [path, ...SEGMENTS.map((last) => `${path}/${last}`)] : [path],
);

const segment = fc.constantFrom("**", "*", "a", "b", "?", "[ab]", "[!a]", "a*", "*b", "{a,b}", "\\*", "*\\*", "{a,**}");
const glob = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join("/"));
const matching = (pattern: string) => {
  const matches = compileGlob(pattern);
  return PATHS.filter((path) => matches(path));
};

describe("pattern containment, against every path of a small universe", () => {
  it("never says contained when some path matches the inner glob and not the outer", () => {
    fc.assert(
      fc.property(glob, glob, (outer, inner) => {
        if (!globContains(outer, inner)) return;
        const outerMatches = compileGlob(outer);
        for (const path of matching(inner)) expect(outerMatches(path), `${outer} ⊇ ${inner}, yet ${path}`).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("never says disjoint when some path matches both", () => {
    fc.assert(
      fc.property(glob, glob, (a, b) => {
        if (globsOverlap(a, b)) return;
        const bMatches = compileGlob(b);
        for (const path of matching(a)) expect(bMatches(path), `${a} and ${b} said disjoint, yet ${path}`).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it("a glob contains itself", () => {
    fc.assert(
      fc.property(glob, (pattern) => globContains(pattern, pattern)),
      { numRuns: 200 },
    );
  });

  it("an escaped path is that path: contained exactly where the outer glob matches it", () => {
    fc.assert(
      fc.property(glob, fc.constantFrom(...PATHS), (outer, path) => {
        const literal = escapeGlob(path);
        expect(compileGlob(literal)(path)).toBe(true);
        expect(globContains(outer, literal)).toBe(compileGlob(outer)(path));
        expect(globsOverlap(outer, literal)).toBe(compileGlob(outer)(path));
      }),
      { numRuns: 300 },
    );
  });
});

describe("splitting a glob at its first wildcard", () => {
  it.each([
    ["src/lib/**/*.ts", "src/lib", "**/*.ts"],
    ["src/\\[x\\]/../../secrets/key", "src/[x]/../../secrets/key", undefined],
    ["src/[x]/../..", "src", "[x]/../.."],
    ["**", "", "**"],
    ["a\\*b", "a*b", undefined],
  ])("%s → base %s, rest %s", (pattern, base, rest) => {
    expect(splitGlob(pattern)).toEqual(rest === undefined ? { base } : { base, rest });
  });
});

describe("hosts as patterns", () => {
  it("compares ports and names: a grant with a port never contains one without", () => {
    expect(resourceWithin("hosts", "*.example.com:443", "api.example.com:443")).toBe(true);
    expect(resourceWithin("hosts", "*.example.com", "*.api.example.com:8443")).toBe(true);
    expect(resourceWithin("hosts", "api.example.com:443", "*.example.com:443")).toBe(false);
    expect(resourceWithin("hosts", "a?.example.com", "a*.example.com")).toBe(false);
    expect(resourceWithin("hosts", "example.com:443", "example.com")).toBe(false);
    expect(resourceWithin("hosts", "[::1]:8080", "[::1]:8080")).toBe(true);
    expect(resourceOverlaps("hosts", "secret.example.com", "*.example.com:443")).toBe(true);
    expect(resourceOverlaps("hosts", "api.example.com:443", "api.example.com:80")).toBe(false);
    expect(resourceOverlaps("hosts", "[::1]", "[::1]:80")).toBe(true);
  });
});
