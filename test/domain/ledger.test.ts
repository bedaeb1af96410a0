import { describe, expect, it } from "vitest";
import { approve, type Ledger, ledgerOf, move, refundableAmount } from "../../src/domain/ledger";
import { application, item } from "../support/domain";

const approved: Ledger = { approved: 1000, financed: 800, refunded: 300 };

describe("the ledger", () => {
  it("reads the financed total from the lines that are not cancelled, discounts included", () => {
    const current = application([item("KB-01", 1000), item("DISC", -200)]);
    expect(ledgerOf(current.application, current.lines)).toEqual({ approved: 800, financed: 800, refunded: 0 });
  });

  it("refundable is what of the financed total is not refunded", () => {
    expect(refundableAmount(approved)).toBe(500);
  });

  it("a refund up to the refundable amount adds to the refunded total", () => {
    expect(move(approved, { refund: 500 })).toEqual({ ok: true, value: { ...approved, refunded: 800 } });
  });

  it("refuses a refund above the refundable amount, whole, at the attribute given", () => {
    expect(move(approved, { refund: 501, attribute: "totalPrice.amount" })).toEqual({
      ok: false,
      problems: [
        {
          code: "REFUND_LIMIT_EXCEEDED",
          message: "a refund of 501 exceeds the 500 still refundable",
          attribute: "totalPrice.amount",
        },
      ],
    });
  });

  it("refuses to leave less financed than was refunded", () => {
    const result = move(approved, { financed: 299 });
    expect(result.ok ? [] : result.problems.map((p) => p.code)).toEqual(["REFUND_LIMIT_EXCEEDED"]);
    expect(move(approved, { financed: 300 })).toEqual({ ok: true, value: { ...approved, financed: 300 } });
  });

  it("never lets the financed total rise, except by an order change up to the approved amount", () => {
    const rise = move(approved, { financed: 900 });
    expect(rise.ok ? [] : rise.problems.map((p) => p.code)).toEqual(["TOTAL_PRICE_LIMIT_EXCEEDED"]);
    expect(move(approved, { financed: 1000, reprice: true }).ok).toBe(true);
    const above = move(approved, { financed: 1001, reprice: true });
    expect(above.ok ? [] : above.problems.map((p) => p.code)).toEqual(["TOTAL_PRICE_LIMIT_EXCEEDED"]);
  });

  it("before approval an order change may set any total", () => {
    expect(move({ approved: null, financed: 800, refunded: 0 }, { financed: 5000, reprice: true }).ok).toBe(true);
  });

  it("takes no negative refund: that is a fault of the caller, not a request", () => {
    expect(() => move(approved, { refund: -1 })).toThrow(RangeError);
  });

  it("approval fixes the approved amount at the financed total", () => {
    expect(approve({ approved: null, financed: 800, refunded: 0 })).toEqual({
      approved: 800,
      financed: 800,
      refunded: 0,
    });
  });
});
