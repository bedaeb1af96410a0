import { advanceTime } from "./advance-time";

/** The sandbox group's routers (loaded by ROUTE_GROUPS in src/app.ts on the first request to its paths). */
export const sandboxRoutes = [advanceTime];
