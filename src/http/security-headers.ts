import { createMiddleware } from "hono/factory";

/**
 * The security headers of every response, error pages included: the ones Hono's `secureHeaders()`
 * sets with its defaults (test/http/security-headers.test.ts holds them equal), as a fixed table: ours
 * never vary, and building the library's from its options at startup was a measurable share of the
 * Worker's start (bench/tried.md, "startup: what is left").
 */
const SECURITY_HEADERS: readonly (readonly [name: string, value: string])[] = [
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ["Cross-Origin-Opener-Policy", "same-origin"],
  ["Origin-Agent-Cluster", "?1"],
  ["Referrer-Policy", "no-referrer"],
  ["Strict-Transport-Security", "max-age=15552000; includeSubDomains"],
  ["X-Content-Type-Options", "nosniff"],
  ["X-DNS-Prefetch-Control", "off"],
  ["X-Download-Options", "noopen"],
  ["X-Frame-Options", "SAMEORIGIN"],
  ["X-Permitted-Cross-Domain-Policies", "none"],
  ["X-XSS-Protection", "0"],
];

export const securityHeaders = createMiddleware(async (c, next) => {
  await next();
  for (const [name, value] of SECURITY_HEADERS) c.res.headers.set(name, value);
});
