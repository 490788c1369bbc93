import type { IncomingHttpHeaders, IncomingMessage, RequestOptions } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupAddress } from "node:dns";

export interface PinnedRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** The address the request goes to, checked by the caller: no second lookup happens. */
  address: LookupAddress;
  signal: AbortSignal;
  maxBytes: number;
}

export interface PinnedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  truncated: boolean;
}

/**
 * One HTTP(S) request to `address`, with the URL's host as its `Host` and,
 * for https, as the name the certificate must carry (SNI): the socket's
 * lookup answers with the checked address, so a resolver that changes its
 * answer (DNS rebinding) is never asked again. No connection is reused and
 * redirects are not followed. The body is read up to `maxBytes`.
 */
export async function sendPinned(request: PinnedRequest): Promise<PinnedResponse> {
  const { url, address } = request;
  const options: RequestOptions = {
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port || (url.protocol === "https:" ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    agent: false,
    // Node asks for every address (`all`) when it may try several families; either way it gets the one checked.
    lookup: ((_hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      if (lookupOptions.all) callback(null, [address]);
      else callback(null, address.address, address.family);
    }) as RequestOptions["lookup"],
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = send(options, resolve);
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (size + chunk.length > request.maxBytes) {
      chunks.push(chunk.subarray(0, request.maxBytes - size));
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated) response.destroy();
  return { status: response.statusCode ?? 0, headers: response.headers, body: new TextDecoder().decode(Buffer.concat(chunks)), truncated };
}
