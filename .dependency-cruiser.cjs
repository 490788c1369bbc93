/**
 * Rein's package rules (docs/architecture.md): each package may import only
 * the Rein packages its package.json lists (devDependencies too, from its
 * tests), only through the faces its package.json exports, and no file
 * import cycles. The rules are read from the package.json files, so the
 * dependency list a package declares is the rule that holds it.
 */
const { existsSync, readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const workspaces = [
  ...readdirSync(join(__dirname, "packages")).map((name) => `packages/${name}`),
  ...readdirSync(join(__dirname, "apps")).map((name) => `apps/${name}`),
  "bench",
].filter((dir) => existsSync(join(__dirname, dir, "package.json")));
const manifests = workspaces.map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(__dirname, dir, "package.json"), "utf8")) }));
const dirOf = new Map(manifests.map(({ dir, manifest }) => [manifest.name, dir]));
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const reinDeps = (manifest, fields) => fields.flatMap((field) => Object.keys(manifest[field] ?? {})).filter((name) => dirOf.has(name));

/** Files another package may import: what each package's `exports` name under the "@rein/source" condition. */
const faces = manifests.flatMap(({ dir, manifest }) =>
  Object.values(manifest.exports ?? {}).flatMap((entry) => (entry?.["@rein/source"] ? [`^${escape(join(dir, entry["@rein/source"]))}$`] : [])),
);

/** A package's sources reach only its dependencies; its tests (and anything outside src/) its devDependencies too. */
const declaredOnly = manifests.flatMap(({ dir, manifest }) => {
  const others = (allowed) => `^(packages|apps)/(?!(${[dir, ...allowed.map((name) => dirOf.get(name))].map((d) => escape(d.split("/").pop())).join("|")})/)[^/]+/`;
  const fromSrc = reinDeps(manifest, ["dependencies", "peerDependencies"]);
  const fromTests = reinDeps(manifest, ["dependencies", "peerDependencies", "devDependencies"]);
  return [
    {
      name: `${manifest.name}-imports-only-what-it-depends-on`,
      severity: "error",
      comment: `${manifest.name}'s package.json dependencies: ${fromSrc.join(", ") || "no Rein package"}`,
      from: { path: `^${escape(dir)}/src/` },
      to: { path: others(fromSrc) },
    },
    {
      name: `${manifest.name}-tests-import-only-what-it-depends-on`,
      severity: "error",
      comment: `${manifest.name}'s package.json dependencies and devDependencies`,
      from: { path: `^${escape(dir)}/`, pathNot: `^${escape(dir)}/src/` },
      to: { path: others(fromTests) },
    },
  ];
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "import cycles between files",
      from: {},
      to: { circular: true },
    },
    ...declaredOnly,
    {
      name: "packages-meet-only-at-their-public-faces",
      severity: "error",
      comment: "another package is reached through a face its package.json exports (index.ts, a subpath such as testing), never its internals",
      from: { path: "^(packages|apps)/([^/]+)/" },
      to: { path: "^packages/[^/]+/src/", pathNot: ["^packages/$2/", ...faces] },
    },
    {
      name: "imports-resolve",
      severity: "error",
      comment: "with pnpm's isolated node_modules, a package not in package.json does not resolve: an upward import fails here",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "npm-dependencies-are-declared",
      severity: "error",
      comment: "every library a package imports is in its own package.json",
      from: { path: "^(packages|apps)/" },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "sources-use-no-dev-dependency",
      severity: "error",
      comment: "what a package's sources import is in its dependencies, so it installs with the package",
      from: { path: "^(packages|apps)/[^/]+/src/", pathNot: "^packages/[^/]+/src/testing/" },
      to: { dependencyTypes: ["npm-dev"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(node_modules|dist|\\.turbo)" },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["@rein/source", "import", "default"] },
  },
};
