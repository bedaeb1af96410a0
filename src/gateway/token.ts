import { constantTimeEqual, hmacSha256Hex } from "../auth/crypto";

/**
 * The gateway token is derived, not stored: HMAC(pepper, application id). It is unguessable without
 * the pepper, bound to one application, and the URL can be rebuilt whenever the application is read.
 */
export async function gatewayToken(pepper: string, applicationId: string): Promise<string> {
  return (await hmacSha256Hex(pepper, `gateway/v1:${applicationId}`)).slice(0, 40);
}

export async function gatewayTokenMatches(pepper: string, applicationId: string, token: string): Promise<boolean> {
  const encoder = new TextEncoder();
  return constantTimeEqual(encoder.encode(await gatewayToken(pepper, applicationId)), encoder.encode(token));
}

export async function gatewayUrl(baseUrl: string, pepper: string, applicationId: string): Promise<string> {
  return `${baseUrl}/gateway/${applicationId}/${await gatewayToken(pepper, applicationId)}`;
}
