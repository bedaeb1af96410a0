import { operation } from "../../http/lazy-routes";

/**
 * The orders group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const orderRoutes = [
  operation(
    "PUT",
    "/financing/v1/applications/:applicationId/order",
    async () => (await import("./change")).changeOrder,
  ),
  operation(
    "PUT",
    "/financing/v1/applications/:applicationId/order/cancel",
    async () => (await import("./cancel-items")).cancelOrderItems,
  ),
  operation(
    "PUT",
    "/financing/v1/applications/:applicationId/order/send",
    async () => (await import("./send")).sendOrder,
  ),
  operation(
    "PUT",
    "/financing/v1/applications/:applicationId/order/deliver",
    async () => (await import("./deliver")).deliverOrder,
  ),
  operation(
    "PUT",
    "/financing/v1/applications/:applicationId/order/return",
    async () => (await import("./return")).returnOrder,
  ),
];
