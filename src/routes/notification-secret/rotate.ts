import {
  bearerSecurity,
  failures,
  IdempotencyHeaders,
  jsonBodyOf,
  openApiRoute,
  type RouteDefinition,
  withDefault,
  writeContent,
} from "../../api";
import { session } from "../../auth/require-session";
import { formatDateTime } from "../../clock";
import { ApiError } from "../../http/errors";
import { schema, z } from "../../lazy-schema";
import { rotateSigningSecret as rotate } from "../../notifications/rotation";
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

export const rotateSigningSecret = openApiRoute(route, async (c) => {
  const { force } = c.req.valid("json");
  const cfg = c.var.config;
  const rotation = await rotate(await c.var.db.orm(), session(c).partnerId, {
    pepper: cfg.AUTH_PEPPER,
    overlapMs: cfg.SIGNING_SECRET_OVERLAP_SECONDS * 1000,
    force,
  });
  if (rotation.outcome === "refused") throw ApiError.of(rotation.problems);
  c.header("Cache-Control", "no-store");
  const until = rotation.previousUntil;
  return c.json(
    {
      secret: rotation.secret,
      ...(until ? { previousSecretExpiresAt: formatDateTime(until, cfg.SERVICE_TIMEZONE) } : {}),
    },
    200,
  );
});
