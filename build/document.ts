/**
 * The OpenAPI 3.1 document of the API, built in Node from the routes' zod schemas (./artefacts.ts writes
 * it). The Worker never builds it: `GET /openapi.json` serves what the build wrote
 * (src/routes/system/openapi-json.ts).
 */

import { ROUTES } from "../generated/routes";
import { type OpenApiRoute, registerOpenApiComponents, router } from "../src/api";
import { authorizationExpiringWebhook, notificationWebhook } from "../src/routes/notifications/webhook";

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
    { name: "Shipments", description: "What each send took out, with your reference and its tracking." },
    {
      name: "Payouts",
      description:
        "What you are paid, when and for what: your terms, the open balance, the daily payouts, their entries and reports, an application's payments.",
    },
    { name: "Notifications", description: "The delivery log, resending, replaying, and the signing secret." },
    { name: "Audit log", description: "Who did what: every console action and API write, append-only." },
    { name: "System", description: "Health of the service." },
    {
      name: "Sandbox",
      description: "Only where the service runs as a sandbox: time moved, and payouts closed and paid, on demand.",
    },
  ],
};

/**
 * Every documented operation, in the document's order: the manifest's (generated/routes.ts, by path,
 * then method), so that the document can be built wherever the manifest runs (in workerd, its tests
 * compare it with Node's).
 */
export async function documentedRoutes(): Promise<OpenApiRoute[]> {
  const loaded = await Promise.all(ROUTES.map((route) => route.load()));
  return [...new Set(loaded)].filter((module): module is OpenApiRoute => "serve" in module);
}

/** Every operation loaded and registered, in the document's order, once. */
async function documented() {
  const registry = await router();
  for (const route of await documentedRoutes()) {
    await route.document(registry.openAPIRegistry);
  }
  registerOpenApiComponents(registry.openAPIRegistry);
  registry.openAPIRegistry.registerWebhook(notificationWebhook);
  registry.openAPIRegistry.registerWebhook(authorizationExpiringWebhook);
  return registry;
}

let registry: ReturnType<typeof documented> | undefined;

/** The OpenAPI 3.1 document of the API (`GET /openapi.json` serves it as the build wrote it). */
export async function openApiDocument() {
  registry ??= documented();
  return (await registry).getOpenAPI31Document(OPENAPI);
}
