/**
 * The console's second factor: time-based one-time passwords (RFC 6238) as every authenticator app makes
 * them (HMAC-SHA1, 6 digits, 30-second steps), computed by `otpauth` (pure JavaScript: it runs in the
 * Worker as in Node). A code is accepted within one step either side of now (a phone's clock drifts) and
 * only for a step later than the last one the person used: a code seen once (over a shoulder, by a
 * phishing page) cannot be used again.
 */
import { Secret, TOTP } from "otpauth";

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of now. */
const WINDOW = 1;

/** The time step of an instant (Unix milliseconds). */
export const totpStep = (at: number) => Math.floor(at / 1000 / TOTP_PERIOD_SECONDS);

/** The code of `secret` (base32) at `at`, as an authenticator shows it; `digits` and `algorithm` for RFC 6238's vectors. */
export function totpCode(secret: string, at: number, digits = TOTP_DIGITS, algorithm = "SHA1"): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm,
    digits,
    period: TOTP_PERIOD_SECONDS,
    timestamp: at,
  });
}

/**
 * The step of the code if it is the secret's within the window of `at` and later than `lastStep` (the
 * step the person used last; null before the first), else null: a wrong code, or one used already.
 */
export function acceptedTotpStep(secret: string, code: string, at: number, lastStep: number | null): number | null {
  const token = code.replace(/\s/g, "");
  if (!new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(token)) return null;
  const delta = TOTP.validate({
    token,
    secret: Secret.fromBase32(secret),
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp: at,
    window: WINDOW,
  });
  if (delta === null) return null;
  const step = totpStep(at) + delta;
  return lastStep === null || step > lastStep ? step : null;
}

/** A secret of 20 bytes (RFC 4226's recommended 160 bits) from the bytes given, as base32. */
export const totpSecretOf = (bytes: Uint8Array) => new Secret({ buffer: bytes.slice(0, 20).buffer }).base32;

/** What an authenticator app scans: the otpauth URI of the secret, labelled with the service and the person. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return new TOTP({
    issuer,
    label: account,
    secret: Secret.fromBase32(secret),
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  }).toString();
}
