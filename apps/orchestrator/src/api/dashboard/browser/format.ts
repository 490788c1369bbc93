/** A span of time for people: seconds under a minute, minutes under an hour, then hours. */
export const duration = (ms: number): string =>
  ms < 60000 ? Math.round(ms / 1000) + " s" : ms < 3600000 ? Math.round(ms / 60000) + " min" : (ms / 3600000).toFixed(1) + " h";

/** A measured duration (a call's, an offset in the run); empty when none was measured. */
export const ms = (value: number | null | undefined): string =>
  value === null || value === undefined ? "" : value < 1000 ? Math.round(value) + " ms" : (value / 1000).toFixed(1) + " s";
