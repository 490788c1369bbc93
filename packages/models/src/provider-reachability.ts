import { connect } from "node:net";
import type { ProviderConfig } from "./model-config.ts";
import { ReinError } from "@rein/contracts";

/** @defaultValue 3000 */
const defaultProbeTimeoutMs = 3000;

/**
 * Checks that something listens at a provider's configured `baseURL`
 * before a run is started against it, so a server that is down or a
 * mistyped port fails at once with one message, rather than after every
 * role's retries. It opens a TCP connection and closes it: no request is
 * sent, so no key leaves the process. Providers without a `baseURL` (the
 * public APIs) and kinds that are not served over HTTP are not probed.
 */
export async function checkProviderReachable(
  name: string,
  providerConfig: Pick<ProviderConfig, "kind" | "baseURL">,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  if (!providerConfig.baseURL || providerConfig.kind === "scripted" || providerConfig.kind === "replay") return;
  const url = new URL(providerConfig.baseURL);
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const shown = `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  const timeoutMs = options.timeoutMs ?? defaultProbeTimeoutMs;
  const problem = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`no answer within ${timeoutMs} ms`);
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.end();
      resolve(undefined);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message);
    });
  });
  if (problem === undefined) return;
  throw new ReinError(
    "model_error",
    `model provider "${name}" (${providerConfig.kind}) at ${shown} is unreachable: ${problem}; expected a server listening there (is it running, and is providers.${name}.baseURL right?)`,
    { details: { provider: name, kind: providerConfig.kind, baseURL: shown, reason: "connection", cause: problem } },
  );
}
