import type { LiveEvent } from "./api-types.ts";
import { el } from "./dom.ts";

/** Longest text one line keeps: the newest output of a long call, not all of it. */
const LINE_CHARS = 2000;

/**
 * Model output as it streams, one line per role and step and one for its
 * thinking; a retry voids what that call showed so far. A call's start and
 * end carry no text.
 */
export function showLive(box: HTMLElement, event: LiveEvent): void {
  if (event.type !== "text_delta" && event.type !== "thinking_delta" && event.type !== "retry") return;
  const who = event.role + " " + (event.stepId || "");
  const row = (key: string, className: string) => {
    let found = box.querySelector<HTMLElement>('[data-key="' + CSS.escape(key) + '"]');
    if (!found) {
      found = el("div", { className });
      found.dataset.key = key;
      box.append(found);
    }
    return found;
  };
  if (event.type === "retry") {
    row(who + " thinking", "live-row live-thinking").textContent = "";
    row(who, "live-row").textContent = "[" + who.trim() + " retried: " + event.reason + "; partial output discarded] ";
    return;
  }
  const target = event.type === "thinking_delta" ? row(who + " thinking", "live-row live-thinking") : row(who, "live-row");
  target.textContent = (target.textContent + event.text).slice(-LINE_CHARS);
}
