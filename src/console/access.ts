/**
 * Which capability (src/domain/roles.ts) each signed-in console page and action uses. The session guard
 * (./session.ts) looks every request up here before it reaches its page: a path missing from this table is
 * refused whatever the role (a new page is reachable only once it is listed), and one the role does not
 * hold is answered 403, naming the role it needs, whether it was asked by the page's own form or by a
 * crafted request.
 */
import { TrieRouter } from "hono/router/trie-router";
import type { Capability } from "../domain/roles";

const APPLICATION = "/console/applications/:applicationId";

/** A page reads; an action (a POST) is also named in the audit log, as the API's operation where it is one. */
export interface Access {
  capability: Capability;
  operation?: string;
}

type Entry =
  | readonly [method: "GET", path: string, capability: Capability]
  | readonly ["POST", string, Capability, string];

const ACCESS: readonly Entry[] = [
  ["POST", "/console/sign-out", "self", "signOut"],
  ["GET", "/console/account", "self"],
  ["POST", "/console/account/sign-out-everywhere", "self", "signOutEverywhere"],
  ["GET", "/console/applications", "read"],
  ["GET", APPLICATION, "read"],
  ["GET", `${APPLICATION}/documents/:documentId`, "read"],
  ["POST", `${APPLICATION}/refund`, "refund", "createRefund"],
  ["POST", `${APPLICATION}/cancel`, "cancel", "cancelApplication"],
  ["POST", `${APPLICATION}/send`, "send", "sendItems"],
  ["POST", `${APPLICATION}/extend`, "extend", "extendAuthorization"],
  ["POST", `${APPLICATION}/notifications/:eventId/resend`, "resend", "resendNotification"],
  // Adding tracking goes with sending the goods.
  ["POST", `${APPLICATION}/shipments/:shipmentId/tracking`, "send", "addShipmentTracking"],
  ["GET", `${APPLICATION}/shipments/:shipmentId/tracking/:entry`, "read"],
  ["GET", "/console/notifications", "read"],
  ["POST", "/console/notifications/replay", "replay", "replayNotifications"],
  ["POST", "/console/notification-secret/rotate", "rotate", "rotateSigningSecret"],
  ["GET", "/console/people", "people"],
  ["POST", "/console/people", "people", "addPerson"],
  ["POST", "/console/people/refund-limit", "people", "setSupportRefundLimit"],
  ["POST", "/console/people/:personId/role", "people", "changeRole"],
  ["POST", "/console/people/:personId/reset", "people", "resetSignIn"],
  ["POST", "/console/people/:personId/remove", "people", "removePerson"],
  ["GET", "/console/audit", "audit"],
  ["GET", "/console/payouts", "payouts"],
  ["GET", "/console/payouts/:payoutId", "payouts"],
  ["GET", "/console/payouts/:payoutId/report.csv", "payouts"],
];

const router = new TrieRouter<Access>();
for (const [method, path, capability, operation] of ACCESS) router.add(method, path, { capability, operation });

/** The capability (and, for an action, the operation) of a signed-in request to `path`; null for one not listed. */
export function accessOf(method: string, path: string): Access | null {
  const [matched] = router.match(method === "HEAD" ? "GET" : method, path);
  return matched[0]?.[0] ?? null;
}
