/**
 * Every Redis key Rein writes, under one configurable prefix (default
 * "rein"). BullMQ queues use the same prefix through their own option.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  run(runId: string): string {
    return `${this.prefix}:run:${runId}`;
  }
  runIndex(): string {
    return `${this.prefix}:runs`;
  }
  lease(runId: string): string {
    return `${this.prefix}:lease:${runId}`;
  }
  trace(runId: string): string {
    return `${this.prefix}:trace:${runId}`;
  }
  traceSeq(runId: string): string {
    return `${this.prefix}:trace-seq:${runId}`;
  }
  artifact(artifactId: string): string {
    return `${this.prefix}:artifact:${artifactId}`;
  }
  /** The ids of a run's artifacts, so a run can be deleted whole. */
  runArtifacts(runId: string): string {
    return `${this.prefix}:run-artifacts:${runId}`;
  }
  approval(approvalId: string): string {
    return `${this.prefix}:approval:${approvalId}`;
  }
  approvalIndex(): string {
    return `${this.prefix}:approvals`;
  }
  approvalByAction(actionHash: string): string {
    return `${this.prefix}:approval-action:${actionHash}`;
  }
  lesson(lessonId: string): string {
    return `${this.prefix}:lesson:${lessonId}`;
  }
  lessonIndex(): string {
    return `${this.prefix}:lessons`;
  }
  idempotency(key: string): string {
    return `${this.prefix}:idem:${key}`;
  }
  checkpoint(runId: string, stepId: string): string {
    return `${this.prefix}:checkpoint:${runId}:${stepId}`;
  }
  toolCache(runId: string): string {
    return `${this.prefix}:tool-cache:${runId}`;
  }
  /** A pub/sub channel, not a key: nothing is stored under it. */
  live(runId: string): string {
    return `${this.prefix}:live:${runId}`;
  }
  /** Everything under the prefix, for tests and `rein runs prune`. */
  pattern(): string {
    return `${this.prefix}:*`;
  }
}
