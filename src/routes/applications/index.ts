import { cancelApplication } from "./cancel";
import { createApplication } from "./create";
import { extendAuthorization } from "./extend";
import { getApplication } from "./get";
import { listApplications } from "./list";
import { precheck } from "./precheck";

/** The applications group's routers (`ROUTE_GROUPS` in src/app.ts loads it on the first request to its paths). */
export const applicationRoutes = [
  createApplication,
  listApplications,
  getApplication,
  cancelApplication,
  extendAuthorization,
  precheck,
];
