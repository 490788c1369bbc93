import { performance } from "node:perf_hooks";
import { Agent, type Model, type ModelRequest, type ModelResponse, Runner, tool, Usage } from "@openai/agents";
import { z } from "zod";

/**
 * The @openai/agents runner on the same conversation as Rein's inner-turn
 * measure: a fake model that calls `echo` with a new number each turn and
 * answers on the last, and the same trivial echo tool. No network, no
 * tracing exporter. Returns milliseconds for a run of `turns` turns.
 */
export async function agentsRun(turns: number): Promise<number> {
  const runner = new Runner({ tracingDisabled: true });
  const agent = new Agent({ name: "bench", instructions: "Echo numbers.", model: new EchoModel(turns), tools: [echo] });
  const started = performance.now();
  const result = await runner.run(agent, "Echo numbers.", { maxTurns: turns + 1 });
  const elapsed = performance.now() - started;
  if (result.finalOutput !== "Echoed every number.") throw new Error(`@openai/agents ended with ${String(result.finalOutput)}`);
  return elapsed;
}

const echo = tool({
  name: "echo",
  description: "Returns its input number.",
  parameters: z.object({ i: z.number().int() }),
  execute: async ({ i }) => `echo ${i}`,
});

/** Calls echo with 0, 1, … on turns 1 … n−1, then answers: Rein's echoWorkerScript in the Responses item format. */
class EchoModel implements Model {
  private turn = 0;

  constructor(private readonly turns: number) {}

  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const index = this.turn;
    this.turn += 1;
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    if (index < this.turns - 1) {
      return {
        usage,
        output: [
          { type: "function_call", callId: `call_${index}`, name: "echo", arguments: JSON.stringify({ i: index }), status: "completed" },
        ],
      };
    }
    return {
      usage,
      output: [
        { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Echoed every number." }] },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: the runner here never streams; a stream would be a different measure.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the bench's echo model does not stream");
  }
}
