import { describe, expect, it } from "vitest";
import { newId } from "../src/ids";

describe("ids", () => {
  it("are 26 Crockford base32 characters that sort by their millisecond", () => {
    const earlier = newId(1_795_000_000_000);
    const later = newId(1_795_000_000_001);
    expect(earlier).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(earlier < later).toBe(true);
  });

  it("made in the same millisecond, sort in the order made (a plan's rows read back as it made them)", () => {
    const ids = Array.from({ length: 1000 }, () => newId(1_795_000_000_002));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
