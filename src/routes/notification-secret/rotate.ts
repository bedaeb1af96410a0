import { createRoute, z } from "@hono/zod-openapi";
import { newSigningSecret, sealSecret } from "../../auth/crypto";
import { session } from "../../auth/require-session";
import { formatDateTime, now } from "../../clock";
import { config } from "../../config";
import { database } from "../../db/client";
import { replaceSigningSecret } from "../../db/partners";
import { bearerSecurity, failures, IdempotencyHeaders, router, writeContent } from "../../http/openapi";
import { DateTimeOutput } from "../applications/schema";
import examples from "../examples.json";

const SigningSecret = z
  .object({
    secret: z.string().openapi({
      description: "The new Standard Webhooks signing secret, `whsec_` and base64. Shown only here, only now.",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    }),
    previousSecretExpiresAt: DateTimeOutput.optional().openapi({
      description: "Until then notifications carry a second signature, with the secret this one replaces",
    }),
  })
  .openapi("SigningSecret");

const route = createRoute({
  operationId: "rotateSigningSecret",
  method: "post",
  path: "/financing/v1/notification-secret/rotate",
  tags: ["Notifications"],
  summary: "Rotate the notification signing secret",
  description:
    "Creates a new signing secret and answers it, once. For the overlap window (24 hours by default) every notification is signed with both the new and the previous secret (two space-separated signatures in `webhook-signature`), so your receivers can switch at their own pace. Send an `Idempotency-Key`: a retried call then answers the same secret instead of rotating again (the stored answer is encrypted).",
  security: bearerSecurity,
  request: { headers: IdempotencyHeaders },
  responses: {
    200: writeContent(SigningSecret, "The new secret", examples.signingSecret, ["Cache-Control"]),
    ...failures({ body: true, idempotent: true, lookup: false }),
  },
});

export const rotateSigningSecret = router().openapi(route, async (c) => {
  const cfg = config(c.env);
  const at = now();
  const secret = newSigningSecret();
  const previousUntil = at + cfg.SIGNING_SECRET_OVERLAP_SECONDS * 1000;
  await replaceSigningSecret(
    database(c.env),
    { partnerId: session(c).partnerId },
    await sealSecret(secret, cfg.AUTH_PEPPER, "signing-secret"),
    previousUntil,
  );
  c.header("Cache-Control", "no-store");
  return c.json({ secret, previousSecretExpiresAt: formatDateTime(previousUntil, cfg.SERVICE_TIMEZONE) }, 200);
});
