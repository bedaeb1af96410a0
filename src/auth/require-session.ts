import { createMiddleware } from "hono/factory";
import type { HonoEnv, Session } from "../env";
import { ApiError } from "../http/errors";

const REALM = 'Bearer realm="financing"';

/** Guards partner routes: the session was resolved by the rate-limit middleware (one object call). */
export const requireSession = createMiddleware<HonoEnv>(async (c, next) => {
  if (!c.get("session")) {
    if (c.get("sessionProblem") === "invalid") {
      throw new ApiError("invalid_token", "the access token is invalid or has expired", undefined, {
        "WWW-Authenticate": `${REALM}, error="invalid_token", error_description="The access token is invalid or has expired"`,
      });
    }
    // RFC 6750 §3.1: a request without credentials gets the challenge without an error code.
    throw new ApiError("token_missing", "the access token is missing", undefined, {
      "WWW-Authenticate": REALM,
    });
  }
  await next();
});

/** The authenticated partner of a guarded route. */
export function session(c: { get(key: "session"): Session | undefined }): Session {
  const s = c.get("session");
  if (!s) throw new Error("session read on an unguarded route");
  return s;
}
