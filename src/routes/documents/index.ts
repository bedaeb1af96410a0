import { downloadDocument } from "./download";

/** The documents group's routers (src/routes/groups.ts loads it on the first request to its paths). */
export const documentRoutes = [downloadDocument];
