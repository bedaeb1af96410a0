import { Hono } from "hono";
import type { HonoEnv } from "../env";
import { gatewayError } from "./errors";
import { showGateway } from "./show";
import { submitGateway } from "./submit";

/**
 * The customer-facing gateway: HTML pages, no session (the URL's token is the credential), outside the
 * JSON body middleware (the form posts application/x-www-form-urlencoded).
 */
export const gateway = new Hono<HonoEnv>();

gateway.use("/gateway/*", async (c, next) => {
  await next();
  // The page shows personal data and its URL carries the token: never cache it, never leak it as a
  // Referer. Forms may only post here; after the POST the browser follows a redirect to the partner's
  // URL, which CSP form-action also governs, hence the schemes (plain http only where it is allowed).
  const formTargets = c.var.config.REQUIRE_HTTPS ? "'self' https:" : "'self' https: http:";
  c.header("Cache-Control", "no-store");
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'unsafe-inline'; form-action ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header("Referrer-Policy", "no-referrer");
  c.header("X-Robots-Tag", "noindex");
});
gateway.route("/", showGateway);
gateway.route("/", submitGateway);
// Set before the app mounts this router: Hono binds a sub-app's error handler when it is mounted.
gateway.onError(gatewayError);
