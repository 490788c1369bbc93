/** True when the CLI at `packageDir` is compiled and no package's sources are newer than its dist/. */
export function compiledIsCurrent(packageDir: string): boolean;
/** After a build succeeded: each package's dist/index.js dated no earlier than its newest source. */
export function markDistCurrent(packageDir: string): void;
