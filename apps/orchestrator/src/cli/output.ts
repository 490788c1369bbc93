/** The CLI is the one place that prints for people. */
export const out = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};
export const err = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
