import { operation } from "../../http/lazy-routes";

/**
 * The documents group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const documentRoutes = [
  operation(
    "GET",
    "/financing/v1/applications/:applicationId/documents/:documentId",
    async () => (await import("./download")).downloadDocument,
  ),
];
