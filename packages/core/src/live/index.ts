export { LiveChannel, type LiveSubscription } from "./live-channel.ts";
export { LiveEvent, liveEventOf } from "./live-event.ts";
