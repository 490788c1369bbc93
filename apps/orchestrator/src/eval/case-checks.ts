import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunState } from "@rein/contracts/run";
import { isTraceEventOf, type TypedTraceEvent } from "@rein/trace";
import type { Expectations } from "./eval-suite.ts";

export interface CheckOutcome {
  check: string;
  passed: boolean;
  detail: string;
}

export interface FinishedCase {
  state: RunState;
  events: readonly TypedTraceEvent[];
  /** The run's workspace directory. */
  workspace: string;
}

export const answerOf = (state: RunState): string => state.result?.answer?.answer ?? state.result?.summary ?? "";

/** Each expectation → one outcome that says what was expected and what was found. */
export async function checkCase(expect: Expectations, finished: FinishedCase): Promise<CheckOutcome[]> {
  const { state, events } = finished;
  const outcomes: CheckOutcome[] = [];
  const add = (check: string, passed: boolean, detail: string) => outcomes.push({ check, passed, detail });
  const answer = answerOf(state);
  const called = new Set(
    events.flatMap((event) => (isTraceEventOf(event, "tool.result") && event.payload.status === "ok" ? [event.payload.name] : [])),
  );
  if (expect.status)
    add(
      `status is ${expect.status}`,
      state.status === expect.status,
      `status ${state.status}${state.stopReason ? ` (${state.stopReason})` : ""}`,
    );
  for (const text of expect.answerContains ?? [])
    add(`answer contains ${JSON.stringify(text)}`, answer.includes(text), `answer: ${JSON.stringify(answer.slice(0, 200))}`);
  if (expect.answerMatches)
    add(
      `answer matches /${expect.answerMatches}/`,
      new RegExp(expect.answerMatches).test(answer),
      `answer: ${JSON.stringify(answer.slice(0, 200))}`,
    );
  if (expect.maxSteps !== undefined)
    add(`steps ≤ ${expect.maxSteps}`, state.spent.steps <= expect.maxSteps, `${state.spent.steps} step(s)`);
  if (expect.maxTokens !== undefined)
    add(`tokens ≤ ${expect.maxTokens}`, state.spent.tokens <= expect.maxTokens, `${state.spent.tokens} token(s)`);
  for (const tool of expect.toolsCalled ?? [])
    add(`${tool} called successfully`, called.has(tool), `ok calls: ${[...called].sort().join(", ") || "none"}`);
  for (const tool of expect.toolsNotCalled ?? [])
    add(`${tool} not called`, !called.has(tool), `ok calls: ${[...called].sort().join(", ") || "none"}`);
  for (const { path, text } of expect.fileContains ?? []) {
    const content = await readFile(join(finished.workspace, path), "utf8").catch(() => undefined);
    add(
      `${path} contains ${JSON.stringify(text)}`,
      content?.includes(text) ?? false,
      content === undefined ? `${path} does not exist` : `${path}: ${content.length} chars`,
    );
  }
  return outcomes;
}
