import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { type ModelRequest, ScriptedProvider } from "../src/index.ts";

const request = (text: string): ModelRequest => ({
  role: "planner",
  system: "You plan.",
  messages: [{ role: "user", content: [{ type: "text", text }] }],
});

const evidence = [
  "Evidence (id: summary):",
  "- obs_a1: search_logs: 10:00 ERROR timeout",
  "- obs_b2: query_metrics: pool 50/50",
  "- obs_a3: search_logs: 10:05 ERROR timeout",
].join("\n");

describe("scripted {{evidence:<tool>}} placeholders", () => {
  it("fills text, tool-call input and structured output with the latest id listed for that tool", async () => {
    const provider = new ScriptedProvider({
      planner: [
        {
          turns: [
            {
              text: "see {{evidence:query_metrics}}",
              toolCalls: [{ name: "read", input: { ids: ["{{evidence:search_logs}}"] } }],
              output: { claims: [{ text: "pool saturated", evidence: ["{{evidence:query_metrics}}", "{{evidence:search_logs}}"] }] },
            },
          ],
        },
      ],
    });
    const response = await provider.complete(request(evidence));
    expect(response.content[0]).toEqual({ type: "text", text: "see obs_b2" });
    expect(response.content[1]).toMatchObject({ type: "tool_call", input: { ids: ["obs_a3"] } });
    expect(response.output).toEqual({ claims: [{ text: "pool saturated", evidence: ["obs_b2", "obs_a3"] }] });
  });

  it("fills a worker's placeholder with the observation of its own step's latest call of that tool", async () => {
    const publish = (title: string) => ({ toolCalls: [{ name: "publish_note", input: { title } }] });
    const provider = new ScriptedProvider({
      worker: [{ turns: [publish("a"), publish("b"), { text: "published as {{evidence:publish_note}}" }] }],
    });
    const response = await provider.complete({
      role: "worker",
      system: "You work.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Publish the note." }] },
        { role: "assistant", content: [{ type: "tool_call", id: "call_1", name: "publish_note", input: { title: "a" } }] },
        { role: "user", content: [{ type: "tool_result", toolCallId: "call_1", content: "[observation obs_p1]\npublished a" }] },
        { role: "assistant", content: [{ type: "tool_call", id: "call_2", name: "publish_note", input: { title: "b" } }] },
        { role: "user", content: [{ type: "tool_result", toolCallId: "call_2", content: "[observation obs_p2]\npublished b" }] },
      ],
    });
    expect(response.content[0]).toEqual({ type: "text", text: "published as obs_p2" });
  });

  it("refuses a placeholder the request has no evidence for, naming the tool", async () => {
    const provider = new ScriptedProvider({ planner: [{ turns: [{ text: "{{evidence:inspect_deployments}}" }] }] });
    const failure = await provider.complete(request(evidence)).catch((error: unknown) => error);
    expect(ReinError.isInstance(failure) && failure.code).toBe("config_invalid");
    expect(String((failure as Error).message)).toContain("inspect_deployments");
  });

  it("leaves a turn without placeholders exactly as scripted", async () => {
    const provider = new ScriptedProvider({ planner: [{ turns: [{ text: "{{not a placeholder}}" }] }] });
    expect((await provider.complete(request("no evidence"))).content).toEqual([{ type: "text", text: "{{not a placeholder}}" }]);
  });
});
