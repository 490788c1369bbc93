import type { ControlEvent } from "@rein/contracts/messages";
import type { ReinQueues } from "../queues/queues.ts";

/** Every control event sent through `queues` from now on, in order; each is still sent, as the controller would receive it. */
export function recordSentControl(queues: ReinQueues): ControlEvent[] {
  const sent: ControlEvent[] = [];
  const sendControl = queues.sendControl.bind(queues);
  queues.sendControl = async (event, options) => {
    sent.push(event);
    return sendControl(event, options);
  };
  return sent;
}
