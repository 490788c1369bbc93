import type { Draft } from "../run-draft.ts";
import { resendLostJobs } from "../lost-jobs.ts";
import type { EventOf } from "./event-of.ts";

/** The re-drive sweep found jobs the queues lost: each is sent again within its allowance, or the run escalates. */
export function onJobsLost(draft: Draft, event: EventOf<"jobs.lost">): string | undefined {
  return resendLostJobs(draft, event);
}
