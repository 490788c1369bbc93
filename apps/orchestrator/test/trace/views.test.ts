import { traceEventOf } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { auditRows, renderAudit } from "../../src/trace/views/audit-view.ts";
import { renderGraph } from "../../src/trace/views/graph-view.ts";
import { renderTimeline } from "../../src/trace/views/timeline-view.ts";
import { fixtureEvents } from "./fixture-events.ts";

describe("trace views", () => {
  const events = fixtureEvents();

  it("timeline shows plan, steps, each call with the decision that let it through, verdicts, end and cost", () => {
    const text = renderTimeline(events);
    expect(text).toContain('plan 1: "Investigate"; then Deploy; risks: prod');
    expect(text).toContain('[s1] dispatched "Investigate" attempt 1; tools: read_file, run_command');
    expect(text).toContain('#0 read_file({"path":"a.txt"}) [allow by default:read] → ok 1.5 ms sha256:aaaaaaaa');
    expect(text).toContain('#1 run_command({"command":"rm"}) [deny by goal:no-rm] → denied');
    expect(text).toContain("approval apr_1 decided by cli:alice: approved");
    expect(text).toContain("✓ deployed: ok");
    expect(text).toContain("run.done: the evaluator verified the answer");
    expect(text).toMatch(/totals: 1 model call\(s\), 4 tool call\(s\), 100 input \+ 20 output tokens, \$0\.0012/);
  });

  it("timeline says the planner only proposes the final answer, and shows the evaluator's verdict on it", () => {
    const end = events.at(-1);
    if (!end) throw new Error("the fixture has no events");
    const ending = [
      traceEventOf("answer.proposed", { planNo: 2, attempt: 1, proposedBy: "planner", claims: 1, gaps: 0 }, end),
      traceEventOf(
        "verdict.ready",
        {
          decision: "done",
          reasons: ["the evaluator verified the final answer"],
          feedback: null,
          checks: [],
          subject: "final_answer",
          attempt: 1,
        },
        end,
      ),
      end,
    ];
    const text = renderTimeline([...events.slice(0, -1), ...ending]);
    expect(text).toContain("the planner proposes a final answer (proposal 1: 1 claim(s), 0 gap(s)); the evaluator checks it");
    expect(text).toContain("verdict on the final answer done: the evaluator verified the final answer");
  });

  it("timeline shows why a model's output was refused, not only the failure that followed", () => {
    const end = events.at(-1);
    if (!end) throw new Error("the fixture has no events");
    const problem = "current_step.tools names list_files, which the run was not granted; expected a subset of: (none)";
    const refused = [
      traceEventOf("model.output_invalid", { role: "planner", attempt: 1, problem }, end),
      traceEventOf("model.failed", { role: "planner", provider: "scripted", model: "scripted-1", error: "script_exhausted" }, end),
    ];
    const text = renderTimeline([...events.slice(0, -1), ...refused]);
    expect(text).toContain(`model planner output refused (attempt 1): ${problem}`);
    expect(text.indexOf("output refused")).toBeLessThan(text.indexOf("model planner failed"));
  });

  it("audit lists every decision with its rule and actor: policy, runtime or a named person", () => {
    const rows = auditRows(events).map((row) => [row.tool, row.decision, row.rule, row.actor]);
    expect(rows).toEqual([
      ["read_file", "allow", "default:read", "policy"],
      ["run_command", "deny", "goal:no-rm", "policy"],
      ["deploy", "ask", "default:external", "policy"],
      ["deploy", "ask", "default:external", "policy"],
      ["deploy", "approved", "approval:apr_1", "cli:alice"],
      ["deploy", "approved", "default:external", "cli:alice"],
      ["ghost_tool", "refused", "runtime:not_on_surface", "runtime"],
    ]);
    expect(renderAudit(events).split("\n")[0]).toMatch(/^seq\s+step\s+tool\s+decision\s+rule\s+actor\s+detail$/);
  });

  it("graph nests a delegated step under its parent with its calls and verdict", () => {
    expect(renderGraph(events)).toBe(
      [
        "run run_fixture (done: the evaluator verified the answer)",
        '└─ s1 "Investigate"',
        "   ├─ attempt 1",
        "   │  ├─ ⚙ #0 read_file → ok",
        "   │  ├─ ⚙ #1 run_command → denied",
        "   │  └─ ⚖ continue",
        '   └─ s2 "Deploy fix" ⇐ delegated by s1',
        "      └─ attempt 1",
        "         ├─ ⏸ suspended: approval (deploy)",
        "         ├─ ⚙ #0 deploy → ok",
        "         ├─ ⚙ #1 ghost_tool → refused",
        "         └─ ⚖ continue",
        "",
      ].join("\n"),
    );
  });
});
