import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { describe, expect, it } from "vitest";
import { securityHeaders } from "../../src/http/security-headers";

/** Every header of a response to `path` from a bare app with `middleware`, sorted by name. */
async function headersOf(middleware: Parameters<Hono["use"]>[1], path: string) {
  const app = new Hono();
  app.use("*", middleware);
  app.get("/ok", (c) => c.json({ ok: true }));
  app.get("/fails", () => {
    throw new Error("boom");
  });
  app.onError((_, c) => c.json({ failed: true }, 500));
  const res = await app.request(path);
  return [...res.headers].sort(([a], [b]) => a.localeCompare(b));
}

describe("security headers", () => {
  it.each(["/ok", "/fails", "/missing"])("are the ones Hono's secureHeaders() sets by default (%s)", async (path) => {
    const ours = await headersOf(securityHeaders, path);
    expect(ours).toEqual(await headersOf(secureHeaders(), path));
    expect(ours.map(([name]) => name)).toContain("strict-transport-security");
  });
});
