/**
 * Whether the service may send a customer or a notification to a URL a partner gave (CONTRACT 6):
 * only where the partner's public servers are, never into a network the service runs in. One rule,
 * used at create, before every delivery and before every redirect. Pure: no HTTP, no SQL.
 *
 * The URL is read by the WHATWG parser first, the same as fetch() reads it, so every notation of an
 * IPv4 address (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`) arrives as
 * dotted decimal, and IPv6 in brackets; ipaddr.js then names the range of every address literal,
 * IPv4-mapped and -compatible IPv6 included.
 */
import ipaddr from "ipaddr.js";
import { type Problem, problem } from "./result";

export interface UrlPolicy {
  /** Deployed: https only, port 443 (or an allowed one), public hosts only. Off: local development. */
  requireHttps: boolean;
  /** Ports besides 443 that an operator allows where HTTPS is required. */
  allowedPorts: readonly number[];
}

/** Names that never lead to the public internet: they resolve inside a host or a private network. */
const INTERNAL_NAMES = /(^|\.)(localhost|local|localdomain|internal|intranet|lan|home\.arpa)$/;

/** Why the service must not contact `value`, or undefined when it may. */
export function unsafeUrlReason(value: string, policy: UrlPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL";
  }
  const https = url.protocol === "https:";
  if (!https && (policy.requireHttps || url.protocol !== "http:")) return "must be an https URL";
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password";
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const address = addressOf(host);
  const loopback = address ? rangeOf(address) === "loopback" : host === "localhost" || host.endsWith(".localhost");
  // Local development (HTTPS off) talks to receivers on this machine, and to nothing else inside.
  if (!policy.requireHttps && loopback) return undefined;
  if (policy.requireHttps && url.port !== "" && !policy.allowedPorts.includes(Number(url.port))) {
    return "must use port 443";
  }
  if (address) {
    const range = rangeOf(address);
    return range === "unicast" ? undefined : `must point at a public host, not a ${describe(range)} address`;
  }
  if (INTERNAL_NAMES.test(host) || !host.includes(".")) return "must point at a public host name";
  return undefined;
}

/** The problems of a create request's merchant URLs, at their attributes (400 INVALID_VALUE). */
export function merchantUrlProblems(urls: Record<string, string>, policy: UrlPolicy): Problem[] {
  return Object.entries(urls).flatMap(([name, value]) => {
    const reason = unsafeUrlReason(value, policy);
    return reason ? [problem("INVALID_VALUE", reason, `merchantUrls.${name}`)] : [];
  });
}

function addressOf(host: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const literal = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  // The cheap test first: after the WHATWG parser, a host that is neither bracketed IPv6 nor dotted
  // decimal is a name, and ipaddr.js's validation (every notation it knows) costs a create measurably.
  if (!(literal.includes(":") || /^[0-9.]+$/.test(literal)) || !ipaddr.isValid(literal)) return undefined;
  return ipaddr.parse(literal);
}

/**
 * The range of an address; an IPv6 address carrying an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`, or the
 * deprecated IPv4-compatible `::a.b.c.d`, which ipaddr.js calls unicast) is read as that IPv4 address.
 */
function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === "ipv4") return address.range();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  const [a, b] = v6.parts.slice(6);
  if (range === "unicast" && v6.parts.slice(0, 6).every((part) => part === 0)) {
    return ipaddr.fromByteArray([a! >> 8, a! & 255, b! >> 8, b! & 255]).range();
  }
  return range;
}

const NAMES: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT",
  private: "private",
  uniqueLocal: "unique-local",
  reserved: "reserved or documentation",
  ipv4Mapped: "IPv4-mapped",
  rfc6145: "IPv4-translated",
  rfc6052: "IPv4-embedded",
  "6to4": "6to4",
  teredo: "Teredo",
};

const describe = (range: string) => NAMES[range] ?? range;
