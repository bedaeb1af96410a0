import { describe, expect, it } from "vitest";
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "../../src/auth/crypto";

const PEPPER = "pepper-of-the-test";

describe("stored passwords", () => {
  it("take PBKDF2_ITERATIONS, 100,000, unless told fewer, and say how many in the hash", async () => {
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    const stored = await hashPassword("correct horse", PEPPER);
    expect(stored.split("$").slice(0, 2)).toEqual(["pbkdf2-sha256", "100000"]);
    expect(await verifyPassword("correct horse", stored, PEPPER)).toBe(true);
    expect(await verifyPassword("correct horse!", stored, PEPPER)).toBe(false);

    const fewer = await hashPassword("correct horse", PEPPER, 1_000);
    expect(fewer.split("$")[1]).toBe("1000");
    expect(await verifyPassword("correct horse", fewer, PEPPER)).toBe(true);
    expect(await verifyPassword("correct horse", fewer, "another pepper")).toBe(false);
  });

  it("never take more than PBKDF2_ITERATIONS, nor none: a hash that claims more is refused unread", async () => {
    await expect(hashPassword("x", PEPPER, 0)).rejects.toThrow(/iterations/);
    await expect(hashPassword("x", PEPPER, PBKDF2_ITERATIONS + 1)).rejects.toThrow(/iterations/);
    const stored = await hashPassword("x", PEPPER, 1_000);
    const claimsMore = stored.replace("$1000$", `$${PBKDF2_ITERATIONS + 1}$`);
    expect(await verifyPassword("x", claimsMore, PEPPER)).toBe(false);
  });
});
