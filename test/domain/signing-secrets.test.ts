import { describe, expect, it } from "vitest";
import { planRotation, type SigningSecrets, signingNow } from "../../src/domain/signing-secrets";

const HOUR = 3_600_000;
const OVERLAP = 24 * HOUR;
const rotate = (secrets: SigningSecrets, sealed: string, at: number, force = false) =>
  planRotation(secrets, { sealed, overlapMs: OVERLAP, force }, at);

function rotated(secrets: SigningSecrets, sealed: string, at: number, force = false): SigningSecrets {
  const result = rotate(secrets, sealed, at, force);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.value;
}

describe("rotating the signing secret", () => {
  const start: SigningSecrets = { current: "A", previous: null, older: null };

  it("keeps the replaced secret signing for the overlap, then only the new one", () => {
    const once = rotated(start, "B", 0);
    expect(once).toEqual({ current: "B", previous: { sealed: "A", expiresAt: OVERLAP }, older: null });
    expect(signingNow(once, OVERLAP - 1)).toEqual(["B", "A"]);
    expect(signingNow(once, OVERLAP)).toEqual(["B"]);
  });

  it("keeps every secret whose overlap runs through a second rotation: A is not cut by B → C", () => {
    const twice = rotated(rotated(start, "B", 0), "C", HOUR);
    expect(signingNow(twice, HOUR)).toEqual(["C", "B", "A"]);
    expect(signingNow(twice, OVERLAP)).toEqual(["C", "B"]);
    expect(signingNow(twice, OVERLAP + HOUR)).toEqual(["C"]);
  });

  it("refuses a rotation that would cut a running secret, and when forced cuts only the oldest", () => {
    const twice = rotated(rotated(start, "B", 0), "C", HOUR);
    const third = rotate(twice, "D", 2 * HOUR);
    expect(third.ok || third.problems.map((p) => p.code)).toEqual(["ROTATION_LIMIT_REACHED"]);
    expect(signingNow(rotated(twice, "D", 2 * HOUR, true), 2 * HOUR)).toEqual(["D", "C", "B"]);
    // Once the oldest's overlap has ended, no force is needed.
    expect(signingNow(rotated(twice, "D", OVERLAP), OVERLAP)).toEqual(["D", "C", "B"]);
  });

  it("gives a partner without a secret its first one, with nothing to overlap", () => {
    expect(rotated({ current: null, previous: null, older: null }, "A", 0)).toEqual({
      current: "A",
      previous: null,
      older: null,
    });
  });
});
