// A Rein plugin in plain Node (no dependencies): text statistics over files in
// the run's workspace. It speaks the JSON-lines wire of docs/plugins.md.
import { readFile } from "node:fs/promises";
import { join, normalize } from "node:path";
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

class ToolError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** A path inside the workspace; the sandbox is the real boundary, this is the tool's own courtesy check. */
function workspacePath(path) {
  const relative = normalize(path);
  if (relative.startsWith("..") || relative.startsWith("/")) throw new ToolError("outside_workspace", `${path} is outside the workspace`);
  return join(process.env.REIN_WORKSPACE, relative);
}

const tools = {
  async word_count({ text: given, path = null }) {
    let text = given;
    if (path !== null) {
      try {
        text = await readFile(workspacePath(path), "utf8");
      } catch (error) {
        if (error.code === "ENOENT") throw new ToolError("not_found", `${path} does not exist in the workspace`);
        throw error;
      }
    }
    const words = text.split(/\s+/).filter(Boolean).length;
    return { path, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0), words, bytes: Buffer.byteLength(text) };
  },
};

createInterface({ input: process.stdin }).on("line", async (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") return send({ type: "ready", tools: Object.keys(tools) });
  if (message.type === "ping") return send({ type: "pong", id: message.id });
  if (message.type !== "call") return;
  try {
    send({ type: "result", id: message.id, ok: true, output: await tools[message.tool](message.args) });
  } catch (error) {
    send({ type: "result", id: message.id, ok: false, error: { code: error.code ?? "internal", message: error.message, retryable: false } });
  }
});
