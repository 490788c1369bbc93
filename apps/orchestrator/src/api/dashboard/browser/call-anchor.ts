/** A call key (step|callId|index) as the element id of its line in the timeline, which the step graph and the answer's evidence link to. */
export const callAnchor = (key: string): string => "call-" + key.replace(/[^A-Za-z0-9_-]/g, "_");

/** Opens a call's line in the timeline and brings it into view (from the step graph or an evidence link). */
export function openCall(key: string): void {
  const details = document.getElementById(callAnchor(key)) as HTMLDetailsElement | null;
  if (!details) return;
  details.open = true;
  details.scrollIntoView({ block: "center" });
}
