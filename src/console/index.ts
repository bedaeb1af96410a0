import { Hono } from "hono";
import type { HonoEnv } from "../env";
import { limitBodyTo } from "../http/body-limit";
import { account } from "./account";
import { applicationDetail } from "./application";
import { applicationActions } from "./application-actions";
import { applicationsList } from "./applications";
import { auditLogPage } from "./audit-log";
import { documentDownload } from "./documents";
import { consoleError } from "./errors";
import { consoleHeaders } from "./layout";
import { notifications } from "./notifications";
import { payoutDetail } from "./payout";
import { payoutsList } from "./payouts";
import { people } from "./people";
import { requireConsoleSession } from "./session";
import { setup } from "./setup";
import { shipmentTracking } from "./shipment-tracking";
import { signIn, signOut } from "./sign-in";

/**
 * The partner console: HTML pages for a partner's people, each signed in as themselves with a role (or,
 * in the migration period, with the partner's credentials: src/console/session.ts), outside the API's JSON body and idempotency middleware (its forms post
 * application/x-www-form-urlencoded). Everything it reads and changes goes through the API's own
 * services and domain.
 */
export const consoleRoutes = new Hono<HonoEnv>();

/** The largest form the console takes: its longest is a refund or a cancellation with a 500-character text. */
export const MAX_FORM_BYTES = 64 * 1024;

consoleRoutes.use("/console/*", async (c, next) => {
  await next();
  consoleHeaders(c);
});
// The console's forms are a few fields: a body far beyond them is refused before anything reads it.
consoleRoutes.use("/console/*", limitBodyTo(MAX_FORM_BYTES));
consoleRoutes.get("/console", (c) => c.redirect("/console/applications", 303));
consoleRoutes.route("/", signIn);
consoleRoutes.route("/", setup);
// Scoped paths, not "*": the group's middleware is mounted into the app, and must guard only these.
for (const path of [
  "/console/sign-out",
  "/console/applications",
  "/console/applications/*",
  "/console/notifications",
  "/console/notifications/*",
  "/console/notification-secret/*",
  "/console/people",
  "/console/people/*",
  "/console/audit",
  "/console/account",
  "/console/account/*",
  "/console/payouts",
  "/console/payouts/*",
]) {
  consoleRoutes.use(path, requireConsoleSession);
}
consoleRoutes.route("/", signOut);
consoleRoutes.route("/", applicationsList);
consoleRoutes.route("/", applicationDetail);
consoleRoutes.route("/", applicationActions);
consoleRoutes.route("/", documentDownload);
consoleRoutes.route("/", notifications);
consoleRoutes.route("/", people);
consoleRoutes.route("/", auditLogPage);
consoleRoutes.route("/", account);
consoleRoutes.route("/", shipmentTracking);
consoleRoutes.route("/", payoutsList);
consoleRoutes.route("/", payoutDetail);
// Set before the app mounts this router: Hono binds a sub-app's error handler when it is mounted.
consoleRoutes.onError(consoleError);
