/**
 * Where the service sends the customer and the notifications (CONTRACT 4). Pure: no HTTP, no SQL.
 */
import { type Problem, problem } from "./result";

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Where HTTPS is required, the partner's URLs must be https and not point at a loopback host. */
export function merchantUrlProblems(urls: Record<string, string>, requireHttps: boolean): Problem[] {
  if (!requireHttps) return [];
  return Object.entries(urls).flatMap(([name, value]) => {
    const url = new URL(value);
    return url.protocol !== "https:" || LOOPBACK.test(url.hostname)
      ? [problem("INVALID_VALUE", "must be an https URL of a public host", `merchantUrls.${name}`)]
      : [];
  });
}
