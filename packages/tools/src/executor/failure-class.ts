import { z } from "zod";
import { ReinError } from "@rein/contracts";
import type { FailureClass } from "@rein/contracts/calls";

const TRANSIENT_ERRNO = new Set(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN", "EPIPE", "EBUSY", "EAGAIN", "UND_ERR_SOCKET"]);

/**
 * What a failure means for the next move: `retryable` (the same call may
 * work later), `different_action` (the arguments, a business rule or the
 * workspace said no: the model must change something), `fatal` (a bug or a
 * cancelled step: stop).
 */
export function classifyFailure(error: unknown): FailureClass {
  if (ReinError.isInstance(error)) {
    const declared = z.enum(["retryable", "different_action", "fatal"]).safeParse(error.details.failure);
    if (declared.success) return declared.data;
    if (error.retryable) return "retryable";
    return error.code === "budget_exhausted" ? "fatal" : "different_action";
  }
  if (error instanceof z.ZodError) return "different_action";
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === "string") {
    if (TRANSIENT_ERRNO.has(code)) return "retryable";
    if (/^E[A-Z]+$/.test(code)) return "different_action";
  }
  return "fatal";
}
