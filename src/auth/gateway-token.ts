import { constantTimeEqual, hmacKey, hmacSha256Hex } from "./crypto";

/**
 * The pepper's imported key, kept for the isolate: a list page presents 20 gateway URLs. The key is
 * kept, not the pending import, so that no request ever waits on a promise of another request.
 */
let pepperKey: { pepper: string; key: CryptoKey } | undefined;

async function keyOf(pepper: string): Promise<CryptoKey> {
  if (pepperKey?.pepper === pepper) return pepperKey.key;
  const key = await hmacKey(pepper);
  pepperKey = { pepper, key };
  return key;
}

/**
 * The gateway token is derived, not stored: HMAC(pepper, application id). It is unguessable without
 * the pepper, bound to one application, and the URL can be rebuilt whenever the application is read.
 */
export async function gatewayToken(pepper: string, applicationId: string): Promise<string> {
  return (await hmacSha256Hex(await keyOf(pepper), `gateway/v1:${applicationId}`)).slice(0, 40);
}

export async function gatewayTokenMatches(pepper: string, applicationId: string, token: string): Promise<boolean> {
  const encoder = new TextEncoder();
  return constantTimeEqual(encoder.encode(await gatewayToken(pepper, applicationId)), encoder.encode(token));
}

export async function gatewayUrl(baseUrl: string, pepper: string, applicationId: string): Promise<string> {
  return `${baseUrl}/gateway/${applicationId}/${await gatewayToken(pepper, applicationId)}`;
}
