import { rotateSigningSecret } from "../notification-secret/rotate";
import { listPartnerNotifications } from "./delivery-log";
import { listNotifications } from "./list";
import { replayNotifications } from "./replay";
import { resendNotification } from "./resend";

/**
 * The notifications group's routers, the signing secret's rotation included (src/routes/groups.ts
 * loads it on the first request to its paths).
 */
export const notificationRoutes = [
  listNotifications,
  resendNotification,
  listPartnerNotifications,
  replayNotifications,
  rotateSigningSecret,
];
