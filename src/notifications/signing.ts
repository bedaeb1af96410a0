/**
 * Signatures of a notification (CONTRACT 6), so that a partner can tell it came from us, unaltered and
 * recent:
 * - Standard Webhooks (standard-webhooks/standard-webhooks, spec/standard-webhooks.md): `webhook-id`,
 *   `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`,
 *   the key being the base64 decoding of the partner's `whsec_` secret; during a rotation both the new
 *   and the previous secret sign, space-separated, so receivers switch at their own pace. Every
 *   Standard Webhooks library (standardwebhooks, svix) verifies it.
 * - The legacy scheme, kept so that no receiver verifying it breaks: `X-Notification-Signature:
 *   v1=<hex HMAC-SHA256(API key, timestamp.body)>` with `X-Notification-Id` and `-Timestamp`.
 * The timestamp is inside the signed text, so a captured notification cannot be replayed later.
 */
import { fromBase64, hmacSha256Base64, hmacSha256Hex } from "../auth/crypto";

export async function signatureHeaders(
  message: { id: string; timestamp: number; body: string },
  secrets: { apiKey: string; signingSecrets: readonly string[] },
): Promise<Record<string, string>> {
  const signed = `${message.id}.${message.timestamp}.${message.body}`;
  const signatures = await Promise.all(
    secrets.signingSecrets.map(async (secret) => `v1,${await hmacSha256Base64(secretKey(secret), signed)}`),
  );
  return {
    ...(signatures.length > 0
      ? {
          "webhook-id": message.id,
          "webhook-timestamp": String(message.timestamp),
          "webhook-signature": signatures.join(" "),
        }
      : {}),
    "X-Notification-Id": message.id,
    "X-Notification-Timestamp": String(message.timestamp),
    "X-Notification-Signature": `v1=${await hmacSha256Hex(secrets.apiKey, `${message.timestamp}.${message.body}`)}`,
  };
}

/** The HMAC key of a `whsec_` secret: the bytes its base64 part encodes. */
function secretKey(secret: string) {
  return fromBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
}
