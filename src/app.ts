import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { requireSession } from "./auth/require-session";
import { config } from "./config";
import { gateway } from "./gateway";
import { gatewayError } from "./gateway/errors";
import { countBindings } from "./http/binding-counters";
import { limitBody } from "./http/body-limit";
import { ApiError, errorBody } from "./http/errors";
import { idempotency } from "./http/idempotency";
import { jsonBody } from "./http/json-body";
import { logRequest, warnTransient } from "./http/log";
import { registerOpenApiComponents, router } from "./http/openapi";
import { rateLimitAndSession } from "./rate-limit/client";
import { readYourWrites } from "./rate-limit/read-your-writes";
import { cancelApplication } from "./routes/applications/cancel";
import { createApplication } from "./routes/applications/create";
import { getApplication } from "./routes/applications/get";
import { listApplications } from "./routes/applications/list";
import { login } from "./routes/authentication/login";
import { logout } from "./routes/authentication/logout";
import { downloadDocument } from "./routes/documents/download";
import { rotateSigningSecret } from "./routes/notification-secret/rotate";
import { listPartnerNotifications } from "./routes/notifications/delivery-log";
import { listNotifications } from "./routes/notifications/list";
import { replayNotifications } from "./routes/notifications/replay";
import { resendNotification } from "./routes/notifications/resend";
import { notificationWebhook } from "./routes/notifications/webhook";
import { cancelOrderItems } from "./routes/orders/cancel-items";
import { changeOrder } from "./routes/orders/change";
import { deliverOrder } from "./routes/orders/deliver";
import { returnOrder } from "./routes/orders/return";
import { sendOrder } from "./routes/orders/send";
import { createRefund } from "./routes/refunds/create";
import { listRefunds } from "./routes/refunds/list";
import { docsPage } from "./routes/system/docs";
import { health } from "./routes/system/health";
import { isTransient, retryAfterSeconds } from "./transient";

const OPENAPI = {
  openapi: "3.1.0",
  info: {
    title: "Financing Partner API",
    version: "1.0.0",
    summary: "Financing applications for your customers' orders: create, decide at our gateway, then manage the order.",
    description:
      "Create and manage customer financing applications (DEFERRED_PAYMENT, PAY_IN_THREE). Every error has the shape {error, error_description, requestId, errors?}; every response carries X-Request-Id and the X-Rate-Limit-* headers (a 503 of an overloaded rate limiter has no quota to report). Notifications of every state change are described under webhooks.",
    contact: { name: "Partner support", email: "partners@example.com" },
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  },
  servers: [
    {
      url: "https://financing-partner-api.{account}.workers.dev",
      description: "Deployed (or the origin in PUBLIC_BASE_URL)",
      variables: {
        account: { default: "your-account", description: "The Cloudflare account's workers.dev subdomain" },
      },
    },
    { url: "http://127.0.0.1:8787", description: "Local development (npm start)" },
  ],
  tags: [
    { name: "Authentication", description: "Log in for a bearer token (7200 s); revoke it." },
    { name: "Applications", description: "Create, read, list and cancel financing applications." },
    { name: "Orders", description: "Change the order, cancel, send, deliver and return items." },
    { name: "Refunds", description: "Refunds of any amount up to what is refundable, and their list." },
    { name: "Documents", description: "Files kept with returns, for their owner." },
    { name: "Notifications", description: "The delivery log, resending, replaying, and the signing secret." },
    { name: "System", description: "Health of the service." },
  ],
};

/** The OpenAPI 3.1 document of the app, as `GET /openapi.json` serves it (scripts/openapi.ts writes it to a file). */
export function openApiDocument(app: ReturnType<typeof createApp>) {
  return app.getOpenAPI31Document(OPENAPI);
}

export function createApp() {
  const app = router();

  app.use("*", requestId());
  app.use("*", countBindings);
  app.use("*", logRequest);
  app.use("*", secureHeaders());
  app.use("*", rateLimitAndSession);
  app.use("*", async (c, next) => {
    if (config(c.env).REQUIRE_HTTPS && new URL(c.req.url).protocol !== "https:") {
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

  app.route("/", health);
  app.route("/", login);
  app.route("/", logout);
  app.route("/", createApplication);
  app.route("/", listApplications);
  app.route("/", getApplication);
  app.route("/", cancelApplication);
  app.route("/", changeOrder);
  app.route("/", cancelOrderItems);
  app.route("/", sendOrder);
  app.route("/", deliverOrder);
  app.route("/", returnOrder);
  app.route("/", createRefund);
  app.route("/", listRefunds);
  app.route("/", listNotifications);
  app.route("/", resendNotification);
  app.route("/", listPartnerNotifications);
  app.route("/", replayNotifications);
  app.route("/", rotateSigningSecret);
  app.route("/", downloadDocument);
  app.route("/", gateway);

  registerOpenApiComponents(app);
  app.openAPIRegistry.registerWebhook(notificationWebhook);
  app.doc31("/openapi.json", OPENAPI);
  app.get("/docs", docsPage);

  app.notFound(() => {
    throw ApiError.notFound("route");
  });
  app.onError((err, c) => {
    // The customer's pages answer their failures as pages, also those raised before the gateway's router.
    if (new URL(c.req.url).pathname.startsWith("/gateway/")) return gatewayError(err, c);
    let apiError: ApiError;
    if (err instanceof ApiError) apiError = err;
    else if (err instanceof HTTPException && err.status < 500) {
      apiError = ApiError.of([{ code: "INVALID_REQUEST", message: err.message }]);
    } else if (isTransient(err)) {
      // The database or an object restarting or overloaded: the client can retry; reads were retried already.
      warnTransient(c, err);
      apiError = new ApiError(
        "service_unavailable",
        "the service is briefly unavailable; retry after Retry-After seconds",
        undefined,
        {
          "Retry-After": String(retryAfterSeconds(err)),
        },
      );
    } else {
      // Anything else is our fault: log it with the request id, answer without internals.
      console.error(
        JSON.stringify({ level: "error", requestId: c.get("requestId"), message: err.message, stack: err.stack }),
      );
      apiError = new ApiError("server_error", "internal error; quote the requestId when reporting it");
    }
    for (const [name, value] of Object.entries(apiError.headers)) c.header(name, value);
    return c.json(errorBody(apiError, c.get("requestId")), apiError.status);
  });
  return app;
}
