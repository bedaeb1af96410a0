import { rotateSigningSecret } from "../notification-secret/rotate";
import { listPartnerNotifications } from "./delivery-log";
import { listNotifications } from "./list";
import { replayNotifications } from "./replay";
import { resendNotification } from "./resend";

/**
 * The notifications group's routers, the signing secret's rotation included (`ROUTE_GROUPS` in
 * src/app.ts loads it on the first request to its paths).
 */
export const notificationRoutes = [
  listNotifications,
  resendNotification,
  listPartnerNotifications,
  replayNotifications,
  rotateSigningSecret,
];
