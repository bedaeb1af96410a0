import { operation } from "../../http/lazy-routes";

/**
 * The notifications group's operations, the signing secret's rotation included (`ROUTE_GROUPS` in
 * src/app.ts loads the group on the first request to its paths, each operation's module on the first
 * request to it; src/routes/applications/index.ts says why each is listed with its method and path).
 */
export const notificationRoutes = [
  operation(
    "GET",
    "/financing/v1/applications/:applicationId/notifications",
    async () => (await import("./list")).listNotifications,
  ),
  operation(
    "POST",
    "/financing/v1/applications/:applicationId/notifications/:eventId/resend",
    async () => (await import("./resend")).resendNotification,
  ),
  operation(
    "GET",
    "/financing/v1/notifications",
    async () => (await import("./delivery-log")).listPartnerNotifications,
  ),
  operation("POST", "/financing/v1/notifications/replay", async () => (await import("./replay")).replayNotifications),
  operation(
    "POST",
    "/financing/v1/notification-secret/rotate",
    async () => (await import("../notification-secret/rotate")).rotateSigningSecret,
  ),
];
