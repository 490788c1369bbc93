import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

type Message = { role: "user" | "assistant" | "tool"; content: string; call?: { name: string; input: { i: number } } };

/**
 * The floor of a turn: the same echo conversation with nothing but a
 * message list, the tool call, and one JSONL trace line per turn written to
 * a file. What any agent loop must do at least. Milliseconds for `turns` turns.
 */
export function bareRun(turns: number): number {
  const scratch = mkdtempSync(join(tmpdir(), "rein-bench-bare-"));
  const trace = openSync(join(scratch, "trace.jsonl"), "w");
  try {
    const started = performance.now();
    const messages: Message[] = [{ role: "user", content: "Echo numbers." }];
    for (let turn = 0; turn < turns; turn += 1) {
      const reply: Message =
        turn < turns - 1
          ? { role: "assistant", content: "", call: { name: "echo", input: { i: turn } } }
          : { role: "assistant", content: "Echoed every number." };
      messages.push(reply);
      if (reply.call) messages.push({ role: "tool", content: `echo ${reply.call.input.i}` });
      writeSync(trace, `${JSON.stringify({ turn, ts: Date.now(), reply, result: messages.at(-1)?.content })}\n`);
    }
    return performance.now() - started;
  } finally {
    closeSync(trace);
    rmSync(scratch, { recursive: true, force: true });
  }
}
