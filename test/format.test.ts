import { describe, expect, it } from "vitest";
import { formatMoney } from "../src/format";

const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, " ");

describe("formatMoney", () => {
  it("prints minor units with two decimals and the currency", () => {
    expect(plain(formatMoney(100100, "CZK"))).toBe("CZK 1,001.00");
    expect(plain(formatMoney(-5, "EUR"))).toBe("-€0.05");
  });

  it("stays right after its bounded cache has dropped a currency for forty others", () => {
    expect(plain(formatMoney(33367, "CZK"))).toBe("CZK 333.67");
    for (let i = 0; i < 40; i++)
      formatMoney(100, `X${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`);
    expect(plain(formatMoney(33367, "CZK"))).toBe("CZK 333.67");
  });
});
