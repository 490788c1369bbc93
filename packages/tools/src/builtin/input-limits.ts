import { z } from "zod";
import { MAX_PATH_CHARS, MAX_PATH_COMPONENTS, pathSizeProblem } from "../path-limits.ts";

/**
 * The documented maximum sizes of the built-in tools' string arguments
 * (`run_command`'s are its own). Each schema checks them before anything
 * runs, so an oversized argument is an `invalid_input` observation that
 * names the limit, not work.
 */
export const INPUT_LIMITS = {
  pathChars: MAX_PATH_CHARS,
  pathComponents: MAX_PATH_COMPONENTS,
  /** `write_file` content and `edit_file`'s oldString / newString. */
  fileContentChars: 1024 * 1024,
  searchQueryChars: 1000,
  globChars: 256,
  urlChars: 2048,
  headerCount: 32,
  headerNameChars: 256,
  headerValueChars: 8192,
  httpBodyChars: 1024 * 1024,
  /** A secret's name and an auth scheme. */
  nameChars: 128,
} as const;

/** At most `max` characters, with a message that says so; later checks are skipped for a string over it. */
export function boundedString(max: number) {
  return z.string().max(max, { message: `at most ${max} characters`, abort: true });
}

/** A workspace path within the length and component limits. */
export function boundedPath() {
  return boundedString(INPUT_LIMITS.pathChars)
    .min(1)
    .superRefine((path, context) => {
      const problem = pathSizeProblem(path);
      if (problem) context.addIssue({ code: "custom", message: problem });
    });
}
