import type { ControlEvent } from "@rein/contracts/messages";

/** The control event of one kind. */
export type EventOf<Kind extends ControlEvent["type"]> = Extract<ControlEvent, { type: Kind }>;
