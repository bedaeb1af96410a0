import { downloadDocument } from "./download";

/** The documents group's routers (`ROUTE_GROUPS` in src/app.ts loads it on the first request to its paths). */
export const documentRoutes = [downloadDocument];
