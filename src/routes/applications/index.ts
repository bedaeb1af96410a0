import { operation } from "../../http/lazy-routes";

/**
 * The applications group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation's module is imported and built on the first request to it. Each is
 * listed with the method and path it answers, so that it is routed before it is loaded;
 * test/app.groups.test.ts holds them equal to the operation's own.
 */
export const applicationRoutes = [
  operation("POST", "/financing/v1/applications", async () => (await import("./create")).createApplication),
  operation("GET", "/financing/v1/applications", async () => (await import("./list")).listApplications),
  operation("GET", "/financing/v1/applications/:applicationId", async () => (await import("./get")).getApplication),
  operation(
    "PUT",
    "/financing/v1/applications/:applicationId/cancel",
    async () => (await import("./cancel")).cancelApplication,
  ),
  operation(
    "PUT",
    "/financing/v1/applications/:applicationId/authorization/extend",
    async () => (await import("./extend")).extendAuthorization,
  ),
  operation("POST", "/financing/v1/precheck", async () => (await import("./precheck")).precheck),
];
