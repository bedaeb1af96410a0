import { rotateSigningSecret } from "../notification-secret/rotate";
import { listPartnerNotifications } from "./delivery-log";
import { listNotifications } from "./list";
import { replayNotifications } from "./replay";
import { resendNotification } from "./resend";

/**
 * The notifications group's operations, the signing secret's rotation included (`ROUTE_GROUPS` in
 * src/app.ts loads the group on the first request to its paths, each operation on the first request to it).
 */
export const notificationRoutes = [
  listNotifications,
  resendNotification,
  listPartnerNotifications,
  replayNotifications,
  rotateSigningSecret,
];
