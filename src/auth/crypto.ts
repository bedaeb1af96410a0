/**
 * Hashing, token and key helpers on WebCrypto only, so that the Worker and the Node operator scripts
 * (which have the same `crypto.subtle`) share one implementation.
 */
const encoder = new TextEncoder();

/**
 * The deployed Workers runtime refuses PBKDF2 above 100,000 iterations (local workerd does not), so
 * this is the ceiling, not a choice to raise. The pepper (a Worker secret) makes a stolen database
 * alone useless for offline guessing.
 */
export const PBKDF2_ITERATIONS = 100_000;

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Standard (not URL-safe) base64 → bytes; the input must already be valid base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return fromBase64Url(text.replace(/\+/g, "-").replace(/\//g, "_"));
}

function toHex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Unguessable random string of `bytes` random bytes, base64url (32 bytes → 43 characters). */
export function randomSecret(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

export function hmacKey(key: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export async function hmacSha256Hex(key: string | CryptoKey, message: string): Promise<string> {
  const k = typeof key === "string" ? await hmacKey(key) : key;
  return toHex(await crypto.subtle.sign("HMAC", k, encoder.encode(message)));
}

/** Constant-time comparison of two byte strings of any length. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  // Compare against itself when lengths differ so that the time does not reveal the length either.
  const same = a.byteLength === b.byteLength;
  const right = same ? b : a;
  let diff = same ? 0 : 1;
  for (let i = 0; i < a.byteLength; i++) diff |= a[i]! ^ right[i]!;
  return diff === 0;
}

async function pbkdf2(
  password: string,
  pepper: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<Uint8Array> {
  // HMAC with the pepper first: the peppered value is fixed-length and never leaves this function.
  const peppered = await crypto.subtle.sign(
    "HMAC",
    await crypto.subtle.importKey("raw", encoder.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]),
    encoder.encode(password),
  );
  const key = await crypto.subtle.importKey("raw", peppered, "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

/**
 * The stored form of a password. Every password the service stores takes PBKDF2_ITERATIONS; the
 * count is written into the hash and read back by verifyPassword, which accepts 1 to PBKDF2_ITERATIONS,
 * so that the tests' partners and people can take fewer (each of their hundreds of sign-ins would
 * otherwise derive two keys of 100,000 iterations).
 */
export async function hashPassword(password: string, pepper: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS) {
    throw new Error(`PBKDF2 iterations must be 1 to ${PBKDF2_ITERATIONS}`);
  }
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await pbkdf2(password, pepper, salt, iterations);
  return `pbkdf2-sha256$${iterations}$${toBase64Url(salt)}$${toBase64Url(hash)}`;
}

export async function verifyPassword(password: string, stored: string, pepper: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  const n = Number(iterations);
  if (scheme !== "pbkdf2-sha256" || !salt || !hash || !Number.isInteger(n) || n < 1 || n > PBKDF2_ITERATIONS) {
    return false;
  }
  const actual = await pbkdf2(password, pepper, fromBase64Url(salt), n);
  return constantTimeEqual(actual, fromBase64Url(hash));
}

/**
 * A syntactically valid hash of a random password: verifying against it costs the same as a real one,
 * so an unknown user name is not told apart from a wrong password by the response time.
 */
export const DECOY_PASSWORD_HASH = `pbkdf2-sha256$${PBKDF2_ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA$${"A".repeat(43)}`;

/**
 * What a sealed secret is for. Each purpose has its own key (HKDF of the pepper with its own label),
 * so a ciphertext of one purpose never opens as another.
 */
export type SealPurpose = "api-key" | "signing-secret" | "idempotent-response" | "totp-secret";

const sealKeys = new Map<string, Promise<CryptoKey>>();

function sealKey(pepper: string, purpose: SealPurpose): Promise<CryptoKey> {
  // Bounded: one pepper per deployment, four purposes.
  const id = `${purpose}:${pepper}`;
  let key = sealKeys.get(id);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(pepper), "HKDF", false, ["deriveKey"]).then((base) =>
      crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new Uint8Array(0),
          info: encoder.encode(`financing-api/${purpose}/v1`),
        },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      ),
    );
    if (sealKeys.size >= 16) sealKeys.clear();
    sealKeys.set(id, key);
    // A failed derivation must not stay cached.
    key.catch(() => sealKeys.delete(id));
  }
  return key;
}

/**
 * AES-GCM under a key derived from the pepper (a Worker secret): for secrets the service must read
 * back in clear (API keys and signing secrets sign notifications) and stored responses that may hold
 * one. Never hashed, so never compared; never stored or logged in clear.
 */
export async function sealSecret(plain: string, pepper: string, purpose: SealPurpose): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await sealKey(pepper, purpose),
    encoder.encode(plain),
  );
  return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

export async function openSecret(ciphertext: string, pepper: string, purpose: SealPurpose): Promise<string> {
  const [version, iv, sealed] = ciphertext.split(".");
  if (version !== "v1" || !iv || !sealed) throw new Error("unknown sealed secret format");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64Url(iv) },
    await sealKey(pepper, purpose),
    fromBase64Url(sealed),
  );
  return new TextDecoder().decode(plain);
}

/** A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** HMAC-SHA256 of `message` under raw key bytes, base64 (the Standard Webhooks signature). */
export async function hmacSha256Base64(key: Uint8Array<ArrayBuffer>, message: string): Promise<string> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", imported, encoder.encode(message))));
}
