import { operation } from "../../http/lazy-routes";

/**
 * The sandbox group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const sandboxRoutes = [
  operation(
    "POST",
    "/financing/v1/sandbox/applications/:applicationId/advance-time",
    async () => (await import("./advance-time")).advanceTime,
  ),
];
