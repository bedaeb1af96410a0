import { Hono } from "hono";
import type { HonoEnv } from "../env";
import { applicationDetail } from "./application";
import { applicationActions } from "./application-actions";
import { applicationsList } from "./applications";
import { documentDownload } from "./documents";
import { consoleError } from "./errors";
import { consoleHeaders } from "./layout";
import { notifications } from "./notifications";
import { requireConsoleSession } from "./session";
import { signIn, signOut } from "./sign-in";

/**
 * The partner console: HTML pages for a partner's people, signed in with the partner's credentials
 * (src/console/session.ts), outside the API's JSON body and idempotency middleware (its forms post
 * application/x-www-form-urlencoded). Everything it reads and changes goes through the API's own
 * services and domain.
 */
export const consoleRoutes = new Hono<HonoEnv>();

consoleRoutes.use("/console/*", async (c, next) => {
  await next();
  consoleHeaders(c);
});
consoleRoutes.get("/console", (c) => c.redirect("/console/applications", 303));
consoleRoutes.route("/", signIn);
// Scoped paths, not "*": the group's middleware is mounted into the app, and must guard only these.
for (const path of [
  "/console/sign-out",
  "/console/applications",
  "/console/applications/*",
  "/console/notifications",
  "/console/notifications/*",
  "/console/notification-secret/*",
]) {
  consoleRoutes.use(path, requireConsoleSession);
}
consoleRoutes.route("/", signOut);
consoleRoutes.route("/", applicationsList);
consoleRoutes.route("/", applicationDetail);
consoleRoutes.route("/", applicationActions);
consoleRoutes.route("/", documentDownload);
consoleRoutes.route("/", notifications);
// Set before the app mounts this router: Hono binds a sub-app's error handler when it is mounted.
consoleRoutes.onError(consoleError);
