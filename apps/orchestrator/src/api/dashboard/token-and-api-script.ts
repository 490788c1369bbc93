/**
 * The page script every view builds on: the API token (taken once from the
 * URL fragment `rein serve` prints, kept in sessionStorage, sent as
 * `Authorization: Bearer`), `api()` for JSON requests, `readEvents()` for the
 * live streams and `el()` to build DOM.
 */
export const TOKEN_AND_API_SCRIPT = `
const tokenInput = document.getElementById("token");
// rein serve prints a URL whose fragment carries the token; a fragment never
// reaches the server. Keep it for this tab only and drop it from the address bar.
const fromUrl = /^#token=([A-Za-z0-9_-]+)$/.exec(location.hash);
if (fromUrl) {
  sessionStorage.setItem("rein-token", fromUrl[1]);
  history.replaceState(null, "", location.pathname);
}
tokenInput.value = sessionStorage.getItem("rein-token") || "";
tokenInput.addEventListener("change", () => { sessionStorage.setItem("rein-token", tokenInput.value); loadRuns(); });
const headers = () => (tokenInput.value ? { authorization: "Bearer " + tokenInput.value, "content-type": "application/json" } : { "content-type": "application/json" });
const api = async (path, init = {}) => {
  const response = await fetch(path, { ...init, headers: headers() });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(body.error || response.status + ""), { status: response.status });
  return body;
};
const el = (tag, attrs = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), attrs);
  for (const child of children) node.append(child);
  return node;
};
// Stable handles for browser tests: data-testid attributes.
const testid = (node, id) => { node.dataset.testid = id; return node; };
// Reads a server-sent event stream fetched with the token (EventSource cannot send it):
// each frame's event name (undefined when it has none) and its JSON data, until the stream ends.
async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\\n\\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const kind = (/^event: (.+)$/m.exec(frame) || [])[1];
      const data = (/^data: (.+)$/m.exec(frame) || [])[1];
      if (data) onEvent(kind, JSON.parse(data));
    }
  }
}
`;
