import type { RedisClient } from "../redis/redis-client.ts";
import { type LessonRef, ReinError } from "@rein/contracts";
import { Lesson, lessonText } from "@rein/contracts/run";
import type { RedisKeys } from "../redis/keys.ts";
import { bm25Scores } from "./bm25.ts";

export interface LessonStoreOptions {
  /** How many of the newest lessons retrieval considers. @defaultValue 500 */
  searchLimit?: number;
}

export interface ScoredLesson {
  lesson: Lesson;
  score: number;
}

/**
 * Lessons in Redis: one JSON string per lesson under `lesson:<id>`, and a
 * sorted set `lessons` of ids by creation time. Writing a lesson is
 * idempotent: its id is derived from the run that learned it.
 *
 * Retrieval ranks the newest `searchLimit` lessons by Okapi BM25 of the goal
 * text against each lesson's signature plus what failed and what worked,
 * drops lessons that share no word with the goal, and breaks ties by
 * recency. Lexical similarity is enough here: lessons and goals are written
 * in the words of the same tasks and tools.
 */
export class LessonStore {
  private readonly searchLimit: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    options: LessonStoreOptions = {},
  ) {
    this.searchLimit = options.searchLimit ?? 500;
  }

  async put(lesson: Lesson): Promise<void> {
    const valid = Lesson.parse(lesson);
    await this.redis
      .multi()
      .set(this.keys.lesson(valid.lessonId), JSON.stringify(valid))
      .zadd(this.keys.lessonIndex(), Date.parse(valid.createdAt) || 0, valid.lessonId)
      .exec();
  }

  async get(lessonId: string): Promise<Lesson | null> {
    const raw = await this.redis.get(this.keys.lesson(lessonId));
    return raw === null ? null : this.parse(lessonId, raw);
  }

  /** Newest first. */
  async list(limit = 100): Promise<Lesson[]> {
    const ids = await this.redis.zrevrange(this.keys.lessonIndex(), 0, limit - 1);
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(...ids.map((id) => this.keys.lesson(id)));
    return ids.flatMap((id, index) => {
      const raw = raws[index];
      return raw === null || raw === undefined ? [] : [this.parse(id, raw)];
    });
  }

  /** Removes a lesson; false when there was none with this id. */
  async remove(lessonId: string): Promise<boolean> {
    const results = await this.redis.multi().del(this.keys.lesson(lessonId)).zrem(this.keys.lessonIndex(), lessonId).exec();
    return results?.[0]?.[1] === 1;
  }

  /** The `limit` lessons most similar to `query`, best first. */
  async similar(query: string, limit = 3): Promise<ScoredLesson[]> {
    const lessons = await this.list(this.searchLimit);
    const scores = bm25Scores(
      query,
      lessons.map((lesson) => `${lesson.signature} ${lesson.failed} ${lesson.worked}`),
    );
    return lessons
      .map((lesson, index) => ({ lesson, score: scores[index] ?? 0, recency: index }))
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.recency - b.recency)
      .slice(0, limit)
      .map(({ lesson, score }) => ({ lesson, score }));
  }

  /** What the planner gets: similar lessons as id + one line. */
  async refsFor(goal: string, limit = 3): Promise<LessonRef[]> {
    return (await this.similar(goal, limit)).map(({ lesson }) => ({ id: lesson.lessonId, text: lessonText(lesson) }));
  }

  private parse(lessonId: string, raw: string): Lesson {
    const parsed = Lesson.safeParse(JSON.parse(raw));
    if (!parsed.success)
      throw new ReinError("contract_invalid", `stored lesson ${lessonId} does not match Lesson: ${parsed.error.message}`);
    return parsed.data;
  }
}
