import { byId } from "./dom.ts";

/**
 * The API token and the requests that carry it. `rein serve` prints a URL
 * whose fragment holds the token; the page keeps it in sessionStorage and
 * sends it as `Authorization: Bearer` on every request, the live streams
 * included (read with fetch: EventSource cannot set headers).
 */

/** The token field in the page's header: its value is the token every request carries. */
export const tokenInput = byId<HTMLInputElement>("token");

/** An answer of the API other than 2xx: its `error` text (or the status) and the status. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Takes the token from the URL's fragment (which never reaches the server), keeps it for this tab only, and drops it from the address bar. */
export function takeToken(): void {
  const fromUrl = /^#token=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (fromUrl) {
    sessionStorage.setItem("rein-token", fromUrl[1] as string);
    history.replaceState(null, "", location.pathname);
  }
  tokenInput.value = sessionStorage.getItem("rein-token") || "";
}

/** Keeps a token typed into the field for this tab. */
export function keepToken(): void {
  sessionStorage.setItem("rein-token", tokenInput.value);
}

export const headers = (): Record<string, string> =>
  tokenInput.value
    ? { authorization: "Bearer " + tokenInput.value, "content-type": "application/json" }
    : { "content-type": "application/json" };

/** The ApiError a refused request reads as, from the body the API sent with it. */
export function apiError(response: Response, body: unknown): ApiError {
  const said = typeof body === "object" && body !== null && "error" in body ? body.error : undefined;
  return new ApiError(typeof said === "string" && said ? said : String(response.status), response.status);
}

/**
 * A JSON request with the token. The answer is typed as the route declares
 * it (api-types.ts) and not checked again: the server is this page's origin.
 */
export async function api<Body>(path: string, init: RequestInit = {}): Promise<Body> {
  const response = await fetch(path, { ...init, headers: headers() });
  const body: unknown = await response.json().catch(() => ({}));
  if (!response.ok) throw apiError(response, body);
  return body as Body;
}

/** What an error says, for the person (a failed request, a refused one, a dropped stream). */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Reads a server-sent event stream fetched with the token: each frame's
 * event name (undefined when it has none) and its JSON data, until the
 * stream ends.
 */
export async function readEvents(response: Response, onEvent: (kind: string | undefined, data: unknown) => void): Promise<void> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const kind = /^event: (.+)$/m.exec(frame)?.[1];
      const data = /^data: (.+)$/m.exec(frame)?.[1];
      if (data) onEvent(kind, JSON.parse(data));
    }
  }
}
