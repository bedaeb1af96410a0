import { operation } from "../../http/lazy-routes";

/**
 * The system group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const systemRoutes = [operation("GET", "/v1/health", async () => (await import("./health")).health)];
