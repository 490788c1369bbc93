import { api, messageOf } from "./api.ts";
import type { Artifact, CallView, RunView, TimelineEntry } from "./api-types.ts";
import { callAnchor } from "./call-anchor.ts";
import { el, testid } from "./dom.ts";
import { ms } from "./format.ts";
import { panel } from "./run-view-panels.ts";

/**
 * The run page's timeline: one line per event worth showing, with its time
 * since the run began and its duration; a tool call's line opens (a
 * `<details>`) to its input, the permission decision and rule, its exit code
 * or HTTP status, its output, the observation as the model saw it, and the
 * artifact holding a truncated output. A failed call or step is marked
 * failed, whatever status the call ended with.
 */

const pre = (text: unknown) =>
  el("pre", { className: "body", textContent: typeof text === "string" ? text : JSON.stringify(text, null, 2) });

const entryLine = (entry: TimelineEntry): string =>
  "+" +
  ms(entry.offsetMs) +
  " " +
  (entry.stepId ? "[" + entry.stepId + "] " : "") +
  entry.label +
  (entry.durationMs !== null ? " (" + ms(entry.durationMs) + ")" : "");

function callDetails(call: CallView, entry: TimelineEntry, runId: string): HTMLDetailsElement {
  const facts: [string, string][] = [
    [
      "status",
      call.status +
        (call.exitCode !== null ? " (exit code " + call.exitCode + ")" : "") +
        (call.httpStatus !== null ? " (HTTP " + call.httpStatus + ")" : ""),
    ],
    [
      "permission",
      call.permission ? call.permission.decision + " by " + call.permission.rule + ": " + call.permission.reason : "no decision recorded",
    ],
  ];
  if (call.approval) facts.push(["approval", call.approval]);
  if (call.message) facts.push(["message", call.message]);
  const details = testid(
    el(
      "details",
      { id: callAnchor(call.key), className: "call" + (call.failed ? " failed" : "") },
      el("summary", { textContent: entryLine(entry) }),
      el(
        "dl",
        {},
        ...facts.flatMap(([name, value]) => [el("dt", { textContent: name }), testid(el("dd", { textContent: value }), "call-" + name)]),
      ),
      el("h4", { textContent: "input" }),
      testid(pre(call.input), "call-input"),
      el("h4", { textContent: "output" }),
      testid(pre(call.output === null ? "(not executed)" : call.output), "call-output"),
      el("h4", { textContent: "as the model saw it" }),
      testid(pre(call.presented === null ? "(not in the trace's prompt copies)" : call.presented), "call-presented"),
      call.artifactId ? artifactLink(call.artifactId, call.truncated, runId) : "",
    ),
    "call",
  );
  details.dataset.callKey = call.key;
  details.dataset.status = call.status;
  return details;
}

export function timelinePanel(view: RunView, callsByKey: Map<string, CallView>): HTMLElement {
  const rows = view.timeline.map((entry) => {
    const call = entry.callKey ? callsByKey.get(entry.callKey) : undefined;
    if (call) return callDetails(call, entry, view.runId);
    return testid(el("div", { className: "entry" + (entry.failed ? " failed" : ""), textContent: entryLine(entry) }), "timeline-entry");
  });
  return panel(
    "run-timeline",
    "Timeline",
    el("div", { id: "timeline" }, ...rows),
    view.unreadable.length
      ? el("p", { className: "error", textContent: view.unreadable.length + " event(s) the trace catalogue cannot read were left out" })
      : "",
  );
}

// The whole output of a call whose observation showed part of it, fetched with the token when asked for.
function artifactLink(artifactId: string, truncated: boolean, runId: string): HTMLElement {
  const body = testid(el("pre", { className: "body", hidden: true }), "call-artifact-content");
  const show = async () => {
    try {
      body.textContent = (await api<Artifact>("/runs/" + runId + "/artifacts/" + artifactId)).content;
    } catch (error) {
      body.textContent = messageOf(error);
    }
    body.hidden = false;
  };
  return el(
    "div",
    {},
    el("h4", { textContent: "artifact " + artifactId + (truncated ? " (the whole output; the model saw part of it)" : "") }),
    testid(el("button", { textContent: "Show the whole output", onclick: show }), "call-artifact"),
    body,
  );
}
