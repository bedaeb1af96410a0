import { hmacSha256Hex } from "../auth/crypto";

/**
 * `X-Notification-Signature: v1=<hex HMAC-SHA256(API key, timestamp + "." + body)>` (CONTRACT 6).
 * The timestamp is inside the signed text so that a captured notification cannot be replayed later
 * with a fresh timestamp; the version prefix lets the scheme change without breaking receivers.
 */
export async function signNotification(apiKey: string, timestamp: number, body: string): Promise<string> {
  return `v1=${await hmacSha256Hex(apiKey, `${timestamp}.${body}`)}`;
}
