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
 * Tokens already derived in this isolate, by application: every presented application carries its
 * gateway URL (a list page 20 of them), and an HMAC is a round trip into the runtime's crypto. Holding
 * them adds nothing to what the isolate holds already (the pepper derives every one of them). Bounded:
 * the oldest goes first, and a change of pepper empties it.
 */
export const GATEWAY_TOKENS_KEPT = 4096;
let derived: { pepper: string; tokens: Map<string, string> } | undefined;

/**
 * The gateway token is derived, not stored: HMAC(pepper, application id). It is unguessable without
 * the pepper, bound to one application, and the URL can be rebuilt whenever the application is read.
 * An application of shard n > 0 (src/db/shards.ts) has `<n>-` before its HMAC, which covers the shard
 * too: the page reads the shard the link names, and a link cannot be pointed at another shard. A
 * shard-0 token is what it was before shards, so every link already handed out keeps working.
 */
export async function gatewayToken(pepper: string, applicationId: string, shard = 0): Promise<string> {
  if (derived?.pepper !== pepper) derived = { pepper, tokens: new Map() };
  const { tokens } = derived;
  const key = shard === 0 ? applicationId : `${shard}:${applicationId}`;
  const kept = tokens.get(key);
  if (kept !== undefined) return kept;
  const mac = (await hmacSha256Hex(await keyOf(pepper), `gateway/v1:${key}`)).slice(0, 40);
  const token = shard === 0 ? mac : `${shard}-${mac}`;
  if (tokens.size >= GATEWAY_TOKENS_KEPT) tokens.delete(tokens.keys().next().value!);
  tokens.set(key, token);
  return token;
}

/** How many derived tokens the isolate holds (for the test of the bound). */
export const gatewayTokensHeld = () => derived?.tokens.size ?? 0;

/** The shard a gateway token names (its `<n>-` prefix; none: 0), before it is checked. */
export function gatewayTokenShard(token: string): number {
  const prefix = /^([1-9][0-9]{0,2})-/.exec(token)?.[1];
  return prefix === undefined ? 0 : Number(prefix);
}

/** Whether `token` is the application's, on the shard it names (gatewayTokenShard). */
export async function gatewayTokenMatches(pepper: string, applicationId: string, token: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const expected = await gatewayToken(pepper, applicationId, gatewayTokenShard(token));
  return constantTimeEqual(encoder.encode(expected), encoder.encode(token));
}

export async function gatewayUrl(baseUrl: string, pepper: string, applicationId: string, shard = 0): Promise<string> {
  return `${baseUrl}/gateway/${applicationId}/${await gatewayToken(pepper, applicationId, shard)}`;
}
