// The chaos suite's wait, as a plugin (docs/plugins.md): a read that a crash
// may safely repeat, so a worker killed inside it never leaves an unknown outcome.
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") return send({ type: "ready", tools: ["wait"] });
  if (message.type === "ping") return send({ type: "pong", id: message.id });
  if (message.type !== "call") return;
  setTimeout(() => send({ type: "result", id: message.id, ok: true, output: { waited_ms: message.args.ms } }), message.args.ms);
});
