/**
 * Rein's package rules (ARCHITECTURE §2): dependencies point one way,
 * orchestrator → planner | workers | evaluator → core; no role package
 * imports another; no import cycles between files.
 */
const roles = ["planner", "workers", "evaluator"];
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "import cycles between files",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-imports-nothing-of-rein",
      severity: "error",
      from: { path: "^packages/core/" },
      to: { path: "^(packages/(planner|workers|evaluator)|apps/)|@rein/(planner|workers|evaluator|orchestrator)" },
    },
    ...roles.map((role) => ({
      name: `${role}-imports-no-other-role`,
      severity: "error",
      from: { path: `^packages/${role}/` },
      to: {
        path: `^(packages/(${roles.filter((other) => other !== role).join("|")})/|apps/)|@rein/(${[...roles.filter((other) => other !== role), "orchestrator"].join("|")})`,
      },
    })),
    {
      name: "packages-meet-only-at-their-public-face",
      severity: "error",
      comment: "another package is reached through its index.ts (or core's runtime and testing faces), never its internals",
      from: { path: "^(packages|apps)/([^/]+)/" },
      to: {
        path: "^packages/[^/]+/src/",
        pathNot: ["^packages/$2/", "^packages/[^/]+/src/index\\.ts$", "^packages/[^/]+/src/testing/index\\.ts$", "^packages/core/src/runtime-entry\\.ts$"],
      },
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
