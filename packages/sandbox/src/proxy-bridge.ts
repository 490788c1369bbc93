/** Where the proxy's unix socket appears inside the sandbox, and the loopback port programs use. */
export const SANDBOX_PROXY_SOCKET = "/run/rein-proxy.sock";
export const SANDBOX_PROXY_PORT = 3128;

/**
 * Runs inside the sandbox as `node -e BRIDGE program args…`: listens on
 * the sandbox's own loopback and forwards each connection to the proxy's
 * unix socket (HTTP_PROXY needs a TCP address), then runs the program and
 * exits as it does. It holds no privilege the program lacks.
 */
export const PROXY_BRIDGE = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const server = net.createServer((client) => {
  const upstream = net.connect(${JSON.stringify(SANDBOX_PROXY_SOCKET)});
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
server.listen(${SANDBOX_PROXY_PORT}, "127.0.0.1", () => {
  const argv = process.argv.slice(1);
  const child = spawn(argv[0], argv.slice(1), { stdio: "inherit" });
  child.on("error", (error) => { process.stderr.write(String(error.message) + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (require("node:os").constants.signals[signal] ?? 0)));
});
`;

export const PROXY_ENV = Object.fromEntries(
  ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"].map((name) => [name, `http://127.0.0.1:${SANDBOX_PROXY_PORT}`]),
);
