import { bearerSecurity, emptyContent, failures, openApiRoute, type RouteDefinition } from "../../api";
import { requireSession, session } from "../../auth/require-session";
import { now } from "../../clock";
import { directoryHandle } from "../../db/handle";
import { revokeAccessToken } from "../../db/partners";
import { limiter, tokenSubject } from "../../rate-limit/client";

const route = {
  operationId: "revokeAccessToken",
  method: "delete",
  path: "/authentication/v1/partner",
  tags: ["Authentication"],
  summary: "Revoke the access token used for this request",
  description:
    "Ends the token at once (before its 7200 seconds). Answers 204; the token then gets 401 `invalid_token`.",
  security: bearerSecurity,
  middleware: [requireSession] as const,
  responses: () => ({ 204: emptyContent("Token revoked"), ...failures({ lookup: false }) }),
} satisfies RouteDefinition;

export const logout = openApiRoute(route, async (c) => {
  const { tokenHash } = session(c);
  // The object answers for the token on every request, so it is revoked there first; D1 keeps the record.
  await limiter(c.env, tokenSubject(tokenHash)).revokeSession();
  // D1's record is in the directory with every token (src/db/shards.ts), whatever the partner's shard.
  await revokeAccessToken(await directoryHandle(c.env).orm(), tokenHash, now());
  return c.body(null, 204);
});
