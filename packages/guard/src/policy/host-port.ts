/** A network destination as scopes, grants and the host allowlist name it. */
export interface HostPort {
  /** Lower-case, without a trailing dot; an IPv6 address keeps its brackets. */
  host: string;
  /** Absent when a pattern or a scope names the host alone. */
  port?: number;
}

const WITH_PORT = /^(.*):(\d{1,5})$/;

/**
 * Splits `host:port` (`[::1]:8080` for IPv6). A value without a port keeps
 * `port` absent; a bare IPv6 address is only recognised in brackets.
 */
export function parseHostPort(value: string): HostPort {
  const [, name = "", digits = ""] = WITH_PORT.exec(value) ?? [];
  // "::1" is an address, not "::" and a port; bracketed "[::1]:443" is.
  const hasPort = name !== "" && (name.endsWith("]") || !name.includes(":"));
  const port = Number(digits);
  if (!hasPort || port < 1 || port > 65_535) return { host: canonicalHost(value) };
  return { host: canonicalHost(name), port };
}

function canonicalHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

export function formatHostPort({ host, port }: HostPort): string {
  return port === undefined ? host : `${host}:${port}`;
}

/** The destination a URL reaches: its explicit port, else its scheme's. */
export function destinationOf(url: URL): HostPort & { port: number } {
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { host: canonicalHost(url.hostname), port };
}

/**
 * Why `entry` is not a `host:port` the deployment may list, or undefined.
 * A bare host is refused rather than guessed: "every port" would open more
 * than was meant, and "443" would silently break a plain-HTTP service.
 */
export function hostPortProblem(entry: string): string | undefined {
  const { host, port } = parseHostPort(entry);
  if (host.length === 0 || host.length > 253 || /[/\s@?#]/.test(host))
    return `"${entry}" is not a host name; expected host:port, e.g. api.example.com:443`;
  if (port === undefined) return `"${entry}" names no port; did you mean "${host}:443"? (entries are host:port)`;
  return undefined;
}
