import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { requireSession } from "./auth/require-session";
import { config } from "./config";
import type { HonoEnv } from "./env";
import { countBindings } from "./http/binding-counters";
import { drainUnreadBody, limitBody } from "./http/body-limit";
import { ApiError, errorBody } from "./http/errors";
import { idempotency } from "./http/idempotency";
import { jsonBody } from "./http/json-body";
import { ExtensibleRouter, mountOnFirstUse, type RouteGroup } from "./http/lazy-routes";
import { faultStatus, logRequest } from "./http/log";
import { securityHeaders } from "./http/security-headers";
import { rateLimitAndSession } from "./rate-limit/client";
import { readYourWrites } from "./rate-limit/read-your-writes";

const ID = "[^/]+";

/**
 * The routes by group, each loaded on the first request to its paths (src/http/lazy-routes.ts), so
 * that a cold isolate builds only the group its request needs. A pattern may claim more paths than
 * its group answers (those are the app's 404), never fewer: test/app.groups.test.ts checks every route
 * of every group against its pattern. The OpenAPI document lists every group (routes/system/openapi.ts).
 */
export const ROUTE_GROUPS: RouteGroup[] = [
  {
    name: "system",
    paths: /^\/v1\/health$/,
    load: async () => (await import("./routes/system/index")).systemRoutes,
  },
  {
    name: "authentication",
    paths: /^\/authentication\//,
    load: async () => (await import("./routes/authentication/index")).authenticationRoutes,
  },
  {
    name: "applications",
    paths: new RegExp(`^/financing/v1/(applications(/${ID}(/cancel|/authorization/extend)?)?/?|precheck)$`),
    load: async () => (await import("./routes/applications/index")).applicationRoutes,
  },
  {
    name: "orders",
    paths: new RegExp(`^/financing/v1/applications/${ID}/order(/|$)`),
    load: async () => (await import("./routes/orders/index")).orderRoutes,
  },
  {
    name: "refunds",
    paths: new RegExp(`^/financing/v1/applications/${ID}/refunds(/|$)`),
    load: async () => (await import("./routes/refunds/index")).refundRoutes,
  },
  {
    name: "notifications",
    paths: new RegExp(`^/financing/v1/(applications/${ID}/notifications|notifications|notification-secret)(/|$)`),
    load: async () => (await import("./routes/notifications/index")).notificationRoutes,
  },
  {
    name: "documents",
    paths: new RegExp(`^/financing/v1/applications/${ID}/documents(/|$)`),
    load: async () => (await import("./routes/documents/index")).documentRoutes,
  },
  {
    name: "sandbox",
    paths: /^\/financing\/v1\/sandbox\//,
    load: async () => (await import("./routes/sandbox/index")).sandboxRoutes,
  },
  {
    name: "gateway",
    paths: /^\/gateway\//,
    load: async () => [(await import("./gateway")).gateway],
  },
  {
    name: "console",
    paths: /^\/console(\/|$)/,
    load: async () => [(await import("./console")).consoleRoutes],
  },
  {
    name: "reference",
    paths: /^\/(openapi\.json|docs)$/,
    load: async () => (await import("./routes/system/reference")).referenceRoutes,
  },
];

export function createApp() {
  // The groups' routes are added after the app has routed its first request.
  const app = new Hono<HonoEnv>({ router: new ExtensibleRouter() });

  app.use("*", requestId());
  app.use("*", async (c, next) => {
    c.set("config", config(c.env));
    await next();
  });
  app.use("*", drainUnreadBody);
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
    // The pages answer their failures as pages, also those raised before their group's router.
    // (Loaded already: a request under /gateway/ or /console loads its group before it is routed.)
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
    return c.json(errorBody(apiError, c.get("requestId")), apiError.status);
  });
  return mountOnFirstUse(app, ROUTE_GROUPS);
}
