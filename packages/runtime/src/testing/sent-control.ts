import type { ControlEvent } from "@rein/contracts/messages";
import type { ReinQueues } from "../queues/queues.ts";

/**
 * Every control event sent through `queues` from now on, in order: to the
 * control queue, or a step's result to the evaluate queue. Each is still sent.
 */
export function recordSentControl(queues: ReinQueues): ControlEvent[] {
  const sent: ControlEvent[] = [];
  const sendControl = queues.sendControl.bind(queues);
  queues.sendControl = async (event, options) => {
    sent.push(event);
    return sendControl(event, options);
  };
  const sendStepResult = queues.sendStepResult.bind(queues);
  queues.sendStepResult = async (event) => {
    sent.push(event);
    return sendStepResult(event);
  };
  return sent;
}
