export { LiveChannel, type LiveSubscription } from "./live-channel.ts";
export { LiveEvent } from "./live-event.ts";
