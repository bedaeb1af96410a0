import { cancelApplication } from "./cancel";
import { createApplication } from "./create";
import { extendAuthorization } from "./extend";
import { getApplication } from "./get";
import { listApplications } from "./list";
import { precheck } from "./precheck";

/**
 * The applications group's operations: `ROUTE_GROUPS` in src/app.ts loads the group on the first request
 * to its paths, and each operation is built on the first request to it.
 */
export const applicationRoutes = [
  createApplication,
  listApplications,
  getApplication,
  cancelApplication,
  extendAuthorization,
  precheck,
];
