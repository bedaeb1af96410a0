import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { HonoEnv } from "../env";
import { errorFields, log } from "../log";

/**
 * One structured line per request. Only the route pattern is logged, never the concrete path (gateway
 * paths carry a customer token), nor headers or bodies (tokens, passwords, files).
 */
export const logRequest = createMiddleware<HonoEnv>(async (c, next) => {
  const started = performance.now();
  await next();
  log(c.res.status >= 500 ? "error" : "info", "request", {
    requestId: c.get("requestId"),
    partnerId: c.get("session")?.partnerId ?? null,
    method: c.req.method,
    route: routePath(c, -1),
    status: c.res.status,
    durationMs: Math.round(performance.now() - started),
  });
});

/** A line about the request being served: its id goes with it, so the request's own line can be found. */
export function logForRequest(c: Context<HonoEnv>, level: "warn" | "error", message: string, error: unknown): void {
  log(level, message, { requestId: c.get("requestId"), ...errorFields(error) });
}
