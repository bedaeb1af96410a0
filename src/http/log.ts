import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { HonoEnv } from "../env";

/**
 * One structured line per request. Only the route pattern is logged, never the concrete path (gateway
 * paths carry a customer token), nor headers or bodies (tokens, passwords, files).
 */
export const logRequest = createMiddleware<HonoEnv>(async (c, next) => {
  const started = performance.now();
  await next();
  console.log(
    JSON.stringify({
      level: c.res.status >= 500 ? "error" : "info",
      requestId: c.get("requestId"),
      partnerId: c.get("session")?.partnerId ?? null,
      method: c.req.method,
      route: routePath(c, -1),
      status: c.res.status,
      durationMs: Math.round(performance.now() - started),
    }),
  );
});

/** A transient failure of D1 or a Durable Object, answered 503: a warning, not an error of ours. */
export function warnTransient(c: Context<HonoEnv>, error: Error): void {
  console.warn(
    JSON.stringify({
      level: "warn",
      requestId: c.get("requestId"),
      message: "transient failure, answered 503",
      error: error.message,
    }),
  );
}
