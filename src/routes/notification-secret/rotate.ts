import { z } from "@hono/zod-openapi";
import { CONCURRENT_MODIFICATION } from "../../applications/change-application";
import { newSigningSecret, sealSecret } from "../../auth/crypto";
import { session } from "../../auth/require-session";
import { formatDateTime, now } from "../../clock";
import { database } from "../../db/client";
import { signingSecretsOf, storeSigningSecrets } from "../../db/partners";
import { planRotation } from "../../domain/signing-secrets";
import { ApiError, orRefuse } from "../../http/errors";
import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  openApiRoute,
  type RouteDefinition,
  withDefault,
  writeContent,
} from "../../http/openapi";
import { schema } from "../../lazy-schema";
import { DateTimeOutput } from "../applications/schema";
import examples from "../examples.json";

const SigningSecret = schema(() =>
  z
    .object({
      secret: z.string().openapi({
        description: "The new Standard Webhooks signing secret, `whsec_` and base64. Shown only here, only now.",
        example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      }),
      previousSecretExpiresAt: DateTimeOutput().optional().openapi({
        description: "Until then notifications carry a second signature, with the secret this one replaces",
      }),
    })
    .openapi("SigningSecret"),
);

const RotateRequest = schema(() =>
  z
    .object({
      force: withDefault(
        z.boolean(),
        false,
        "Rotate even when two earlier secrets still sign: the oldest of them stops signing at once (a secret that leaked)",
      ),
    })
    .openapi("RotateSigningSecretRequest"),
);

const route = {
  operationId: "rotateSigningSecret",
  method: "post",
  path: "/financing/v1/notification-secret/rotate",
  tags: ["Notifications"],
  summary: "Rotate the notification signing secret",
  description:
    'Creates a new signing secret and answers it, once. For the overlap window (24 hours by default) every notification is signed with both the new and the previous secret (space-separated signatures in `webhook-signature`), so your receivers can switch at their own pace. Rotating again during an overlap keeps the earlier secret signing until its own overlap ends: at most two earlier secrets sign at once (three signatures), so a rotation that would cut one whose overlap still runs is refused with 422 ROTATION_LIMIT_REACHED, unless the body says `{"force": true}`, which stops the oldest at once. The body may be empty. Send an `Idempotency-Key`: a retried call then answers the same secret instead of rotating again (the stored answer is encrypted).',
  security: bearerSecurity,
  request: () => ({ headers: IdempotencyHeaders(), body: jsonBodyOf(RotateRequest(), { force: false }) }),
  responses: () => ({
    200: writeContent(SigningSecret(), "The new secret", examples.signingSecret, ["Cache-Control"]),
    ...failures({ body: true, idempotent: true, lookup: false, refusals: { ROTATION_LIMIT_REACHED: "" } }),
  }),
} satisfies RouteDefinition;

/** A few rounds at most: only another rotation of the same partner at the same moment makes one lose. */
const ROUNDS = 5;

export const rotateSigningSecret = openApiRoute(route, async (c) => {
  const { force } = c.req.valid("json");
  const cfg = c.var.config;
  const { partnerId } = session(c);
  const db = database(c.env);
  const secret = newSigningSecret();
  const sealed = await sealSecret(secret, cfg.AUTH_PEPPER, "signing-secret");
  const overlapMs = cfg.SIGNING_SECRET_OVERLAP_SECONDS * 1000;
  for (let round = 1; round <= ROUNDS; round++) {
    const at = now();
    const before = await signingSecretsOf(db, partnerId);
    if (!before) break;
    const after = orRefuse(planRotation(before, { sealed, overlapMs, force }, at));
    if (await storeSigningSecrets(db, partnerId, before, after)) {
      c.header("Cache-Control", "no-store");
      const until = after.previous?.expiresAt;
      return c.json(
        { secret, ...(until ? { previousSecretExpiresAt: formatDateTime(until, cfg.SERVICE_TIMEZONE) } : {}) },
        200,
      );
    }
  }
  throw ApiError.of([CONCURRENT_MODIFICATION]);
});
