import { describe, expect, it } from "vitest";
import { acceptedTotpStep, totpCode, totpStep, totpUri } from "../../src/domain/totp";

/** RFC 6238, Appendix B: the seeds ("1234567890" repeated to 20, 32 and 64 bytes) as base32, and the 8-digit codes. */
const SEEDS = {
  SHA1: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
  SHA256: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA",
  SHA512: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA",
} as const;
const VECTORS: [seconds: number, sha1: string, sha256: string, sha512: string][] = [
  [59, "94287082", "46119246", "90693936"],
  [1111111109, "07081804", "68084774", "25091201"],
  [1111111111, "14050471", "67062674", "99943326"],
  [1234567890, "89005924", "91819424", "93441116"],
  [2000000000, "69279037", "90698825", "38618901"],
  [20000000000, "65353130", "77737706", "47863826"],
];

describe("TOTP", () => {
  it("makes RFC 6238's test vectors: SHA-1, SHA-256 and SHA-512, 8 digits, 30-second steps", () => {
    for (const [seconds, sha1, sha256, sha512] of VECTORS) {
      const at = seconds * 1000;
      expect(totpCode(SEEDS.SHA1, at, 8, "SHA1")).toBe(sha1);
      expect(totpCode(SEEDS.SHA256, at, 8, "SHA256")).toBe(sha256);
      expect(totpCode(SEEDS.SHA512, at, 8, "SHA512")).toBe(sha512);
    }
  });

  it("makes the 6 digits an authenticator app shows (the vectors' last six)", () => {
    expect(totpCode(SEEDS.SHA1, 59_000)).toBe("287082");
    expect(totpCode(SEEDS.SHA1, 1111111109_000)).toBe("081804");
  });

  it("accepts a code of now, or of one step either side (a phone's clock drifts), and answers its step", () => {
    const at = 1234567890_000;
    const step = totpStep(at);
    expect(acceptedTotpStep(SEEDS.SHA1, totpCode(SEEDS.SHA1, at), at, null)).toBe(step);
    expect(acceptedTotpStep(SEEDS.SHA1, totpCode(SEEDS.SHA1, at - 30_000), at, null)).toBe(step - 1);
    expect(acceptedTotpStep(SEEDS.SHA1, totpCode(SEEDS.SHA1, at + 30_000), at, null)).toBe(step + 1);
    expect(acceptedTotpStep(SEEDS.SHA1, ` ${totpCode(SEEDS.SHA1, at).replace(/(...)/, "$1 ")}`, at, null)).toBe(step);
  });

  it("refuses a wrong code, one two steps away, and anything that is not six digits", () => {
    const at = 1234567890_000;
    const code = totpCode(SEEDS.SHA1, at);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    expect(acceptedTotpStep(SEEDS.SHA1, wrong, at, null)).toBeNull();
    expect(acceptedTotpStep(SEEDS.SHA1, totpCode(SEEDS.SHA1, at - 60_000), at, null)).toBeNull();
    expect(acceptedTotpStep(SEEDS.SHA1, totpCode(SEEDS.SHA1, at + 60_000), at, null)).toBeNull();
    for (const text of ["", "12345", "1234567", "abcdef", code.slice(0, 5)]) {
      expect(acceptedTotpStep(SEEDS.SHA1, text, at, null)).toBeNull();
    }
  });

  it("refuses a code replayed: its step, or an earlier one, was used already", () => {
    const at = 1234567890_000;
    const code = totpCode(SEEDS.SHA1, at);
    const step = acceptedTotpStep(SEEDS.SHA1, code, at, null)!;
    expect(acceptedTotpStep(SEEDS.SHA1, code, at, step)).toBeNull();
    expect(acceptedTotpStep(SEEDS.SHA1, code, at + 10_000, step)).toBeNull();
    // The previous step's code, still in the window, is refused after a later one was used.
    expect(acceptedTotpStep(SEEDS.SHA1, totpCode(SEEDS.SHA1, at - 30_000), at, step)).toBeNull();
    // The next step's code is a new one.
    expect(acceptedTotpStep(SEEDS.SHA1, totpCode(SEEDS.SHA1, at + 30_000), at + 30_000, step)).toBe(step + 1);
  });

  it("labels the URI an app scans with the issuer and the person, 6 digits every 30 seconds", () => {
    const uri = new URL(totpUri(SEEDS.SHA1, "Partner console", "demo:jana@shop.example"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(SEEDS.SHA1);
    expect(uri.searchParams.get("issuer")).toBe("Partner console");
    expect(uri.searchParams.get("digits")).toBe("6");
    expect(uri.searchParams.get("period")).toBe("30");
    expect(decodeURIComponent(uri.pathname)).toContain("demo:jana@shop.example");
  });
});
