import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { ROUTES } from "../generated/routes";
import { auditApiWrites } from "./api/audit";
import { ExtensibleRouter, mountOnFirstUse } from "./api/mount";
import { requireSession } from "./auth/require-session";
import { config } from "./config";
import type { HonoEnv } from "./env";
import { countBindings } from "./http/binding-counters";
import { drainUnreadBody, limitBody } from "./http/body-limit";
import { ApiError, errorBody } from "./http/errors";
import { idempotency } from "./http/idempotency";
import { jsonBody } from "./http/json-body";
import { faultStatus, logForRequest, logRequest } from "./http/log";
import { securityHeaders } from "./http/security-headers";
import { rateLimitAndSession } from "./rate-limit/client";
import { readYourWrites } from "./rate-limit/read-your-writes";
import { isPartnerMoving } from "./transient";
import { wireOf } from "./wire";

/**
 * The database handle module, imported by the first request that uses the database rather than at the
 * Worker's startup (its D1 session's AsyncLocalStorage is the runtime's `node:async_hooks`, a measurable
 * share of the startup: bench/tried.md); kept once loaded.
 */
let handles: typeof import("./db/handle") | undefined;

/**
 * Sets the request's one database handle (`c.var.db`), which every later step reads: the token's
 * partner's shard (src/db/shards.ts), else the directory's database, until a page learns whose the
 * request is (the gateway from its link, the console from its session) and takes that shard's.
 */
const useDatabase = createMiddleware<HonoEnv>(async (c, next) => {
  handles ??= await import("./db/handle");
  c.set("db", handles.shardHandle(c.env, c.var.session?.shard ?? 0));
  await next();
});

/**
 * The Worker's app: the middleware chain, the error envelope, and every route of the manifest
 * (generated/routes.ts, written by the build from the route modules), each module mounted on the first
 * request to it (src/api/mount.ts).
 */
export function createApp() {
  // The routes are added after the app has routed its first request.
  const app = new Hono<HonoEnv>({ router: new ExtensibleRouter() });

  app.use("*", requestId());
  app.use("*", async (c, next) => {
    c.set("config", config(c.env));
    await next();
  });
  app.use("*", drainUnreadBody);
  // Records each API write once answered (a create or a change of an application carries its entry in its own batch):
  // outside the binding counters, which report what the operation itself costs.
  app.use("/financing/*", auditApiWrites);
  app.use("*", countBindings);
  app.use("*", logRequest);
  app.use("*", securityHeaders);
  app.use("*", rateLimitAndSession);
  app.use("*", async (c, next) => {
    if (c.var.config.REQUIRE_HTTPS && new URL(c.req.url).protocol !== "https:") {
      throw new ApiError("https_required", "requests must use HTTPS");
    }
    await next();
  });
  // The request's one database handle, for the paths that use the database (not the reference's).
  for (const path of ["/financing/*", "/authentication/*", "/gateway/*", "/console", "/console/*", "/v1/health"]) {
    app.use(path, useDatabase);
  }
  app.use("/financing/*", requireSession);
  app.use("/financing/*", readYourWrites);
  app.use("*", limitBody);
  app.use("/authentication/*", jsonBody);
  app.use("/financing/*", jsonBody);
  app.use("/financing/*", idempotency);

  app.notFound(() => {
    throw ApiError.notFound("route");
  });
  app.onError((err, c) => {
    // The pages answer their failures as pages, also those raised before their router.
    // (Loaded already: a request under /gateway/ or /console loads its router before it is routed.)
    const { pathname } = new URL(c.req.url);
    if (pathname.startsWith("/gateway/")) {
      return import("./gateway/errors").then(({ gatewayError }) => gatewayError(err, c));
    }
    if (/^\/console(\/|$)/.test(pathname)) {
      return import("./console/errors").then(({ consoleError }) => consoleError(err, c));
    }
    let apiError: ApiError;
    if (err instanceof ApiError) apiError = err;
    else if (err instanceof HTTPException && err.status < 500) {
      apiError = ApiError.of([{ code: "INVALID_REQUEST", message: err.message }]);
    } else if (faultStatus(c, err) === 503) {
      apiError = new ApiError(
        "service_unavailable",
        "the service is briefly unavailable; retry after Retry-After seconds",
      );
    } else {
      // Our fault (logged with the request id): answered without internals.
      apiError = new ApiError("server_error", "internal error; quote the requestId when reporting it");
    }
    for (const [name, value] of Object.entries(apiError.headers)) c.header(name, value);
    const body = errorBody(apiError, c.get("requestId"));
    // In the session partner's wire profile (src/wire); an error before the partner is known is ours.
    const session = c.get("session");
    const wire = session && wireOf(session.wireProfile);
    const answer = () =>
      wire ? wire.then((profile) => c.json(profile.error(body), apiError.status)) : c.json(body, apiError.status);
    // A write refused on a shard its partner has left: the token's session learns the new shard first,
    // so that the retry goes there (src/rate-limit/partner-moved.ts). Only a token's session can.
    if (session && c.req.path.startsWith("/financing/") && isPartnerMoving(err)) {
      return import("./rate-limit/partner-moved")
        .then(({ followMove }) => followMove(c.env, session))
        .catch((failure) => logForRequest(c, "warn", "a moved partner's session not moved", failure))
        .then(answer);
    }
    return answer();
  });
  return mountOnFirstUse(app, ROUTES);
}
