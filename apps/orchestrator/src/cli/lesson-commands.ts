import { ReinError } from "@rein/contracts";
import { LessonStore } from "@rein/runtime";
import { contextFlags, openContext } from "./cli-context.ts";
import type { CommandHandler, FlagValues, GLOBAL_FLAGS } from "./command-spec.ts";
import type { LESSONS } from "./command-specs.ts";
import { out } from "./output.ts";

async function withLessons(flags: FlagValues<typeof GLOBAL_FLAGS>, body: (lessons: LessonStore) => Promise<number>): Promise<number> {
  const context = await openContext({ ...contextFlags(flags) });
  try {
    return await body(new LessonStore(context.runtime.redis, context.runtime.keys));
  } finally {
    await context.close();
  }
}

export const lessonsCommand: CommandHandler<typeof LESSONS> = (args, flags) =>
  withLessons(flags, async (lessons) => {
    if (args.subcommand === "rm") {
      if (!(await lessons.remove(args.lessonId)))
        throw new ReinError("not_found", `no lesson ${args.lessonId}; expected an id listed by \`rein lessons\``);
      out(`removed ${args.lessonId}`);
      return 0;
    }
    const goal = flags.for;
    const listed = goal
      ? (await lessons.similar(goal, 10)).map(({ lesson, score }) => ({ lesson, score }))
      : (await lessons.list()).map((lesson) => ({ lesson, score: undefined }));
    if (flags.json) {
      out(
        JSON.stringify(
          listed.map(({ lesson, score }) => ({ ...lesson, ...(score === undefined ? {} : { score }) })),
          null,
          2,
        ),
      );
      return 0;
    }
    if (listed.length === 0) out(goal ? "no similar lessons" : "no lessons");
    for (const { lesson, score } of listed) {
      out(
        `${lesson.lessonId}  ${lesson.kind.padEnd(19)} ${lesson.createdAt}  run ${lesson.runId}${score === undefined ? "" : `  score ${score.toFixed(2)}`}`,
      );
      out(`    task:   ${lesson.signature}`);
      out(`    failed: ${lesson.failed}`);
      if (lesson.worked) out(`    worked: ${lesson.worked}`);
    }
    return 0;
  });
