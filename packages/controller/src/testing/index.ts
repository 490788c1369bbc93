// @rein/controller/testing, for other packages' tests: run states, step results, events and settings
// to drive `transition()` directly or to seed a run's state.
export { baseState, event, now, planned, result, settings, spec, step, usage, verdict } from "./transition-fixtures.ts";
