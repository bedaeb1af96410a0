import { createRefund } from "./create";
import { listRefunds } from "./list";

/** The refunds group's routers (`ROUTE_GROUPS` in src/app.ts loads it on the first request to its paths). */
export const refundRoutes = [createRefund, listRefunds];
