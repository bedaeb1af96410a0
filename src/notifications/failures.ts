/**
 * Why a delivery attempt failed, in words a partner can act on. The runtime's own messages are terse
 * or opaque ("internal error; reference = …"), and in production an unreachable endpoint comes back
 * from Cloudflare's edge as a 52x status, so both are translated here.
 */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Cloudflare's own answers when it could not reach the endpoint (developers.cloudflare.com, 5xx errors). */
const EDGE_STATUSES: Record<number, string> = {
  520: "the endpoint's server answered something that is not HTTP",
  521: "connection refused by the endpoint's server",
  522: "connection to the endpoint's server timed out",
  523: "the endpoint's server is unreachable",
  524: "the endpoint's server accepted the connection but did not answer in time",
  525: "TLS handshake with the endpoint's server failed",
  526: "the endpoint's TLS certificate is not valid",
  530: "the endpoint's host name does not resolve (DNS failure)",
};

/** `HTTP 500: <first 200 characters of the body>`, or what a Cloudflare edge status means. */
export function statusFailure(status: number, body: string): string {
  const edge = EDGE_STATUSES[status];
  const text = body.replace(/\s+/g, " ").trim().slice(0, 200);
  return `HTTP ${status}${edge ? ` (${edge})` : ""}${text ? `: ${text}` : ""}`;
}

const PATTERNS: [RegExp, string][] = [
  [
    /dns|name not resolved|not known|getaddrinfo|ENOTFOUND|resolve/i,
    "DNS failure: the endpoint's host name does not resolve",
  ],
  [/refused|ECONNREFUSED/i, "connection refused"],
  [/tls|ssl|certificate|handshake/i, "TLS error: the secure connection to the endpoint failed"],
  [/reset|ECONNRESET|connection lost|disconnected|closed/i, "the connection closed before an answer"],
  [/unreachable|EHOSTUNREACH|ENETUNREACH/i, "the endpoint's host is unreachable"],
];

/** A thrown fetch error as a partner would understand it; never the runtime's reference text. */
export function thrownFailure(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `timeout: no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  }
  const message = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  for (const [pattern, meaning] of PATTERNS) if (pattern.test(message)) return meaning;
  return "network error: no connection to the endpoint (the runtime gave no reason)";
}
