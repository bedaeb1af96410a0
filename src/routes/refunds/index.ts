import { operation } from "../../http/lazy-routes";

/**
 * The refunds group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const refundRoutes = [
  operation(
    "POST",
    "/financing/v1/applications/:applicationId/refunds",
    async () => (await import("./create")).createRefund,
  ),
  operation(
    "GET",
    "/financing/v1/applications/:applicationId/refunds",
    async () => (await import("./list")).listRefunds,
  ),
];
