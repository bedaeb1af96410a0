import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { HonoEnv } from "../env";
import { errorFields, log } from "../log";
import { isTransient, retryAfterSeconds } from "../transient";

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

/**
 * A failure that is not the client's, logged with the request: 503 with `Retry-After` when the
 * platform's failure is transient (the client can retry; reads were retried already), else 500, our
 * fault. The API, the gateway and the console each answer that status in their own form.
 */
export function faultStatus(c: Context<HonoEnv>, error: unknown): 500 | 503 {
  if (isTransient(error)) {
    logForRequest(c, "warn", "transient failure, answered 503", error);
    c.header("Retry-After", String(retryAfterSeconds(error)));
    return 503;
  }
  logForRequest(c, "error", "request failed, answered 500", error);
  return 500;
}
