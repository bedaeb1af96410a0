import { describe, expect, it } from "vitest";
import { approve, type Ledger, ledgerOf, move, refundableAmount } from "../../src/domain/ledger";
import { application, item } from "../support/domain";

/** Approved at 1000, 800 financed of which 800 went out, 300 refunded. */
const approved: Ledger = { currency: "CZK", approved: 1000, financed: 800, wentOut: 800, refunded: 300 };

describe("the ledger", () => {
  it("reads the financed total from the lines that are not cancelled, discounts included", () => {
    const current = application([item("KB-01", 1000), item("DISC", -200)]);
    expect(ledgerOf(current.application, current.lines)).toEqual({
      currency: "CZK",
      approved: 800,
      financed: 800,
      wentOut: -200,
      refunded: 0,
    });
  });

  it("reads what went out as the financed total without the goods not sent: the discount applies to what went out", () => {
    const current = application([item("KB-01", 1000), item("MS-01", 500), item("DISC", -200)]);
    const [keyboard, mouse, discount] = current.lines;
    const lines = [{ ...keyboard!, state: "SENT" as const }, mouse!, discount!];
    expect(ledgerOf(current.application, lines)).toMatchObject({ financed: 1300, wentOut: 800 });
    const settled = [
      { ...keyboard!, state: "RETURNED" as const },
      { ...mouse!, state: "CANCELLED" as const },
      { ...discount!, state: "RETURNED" as const },
    ];
    expect(ledgerOf(current.application, settled)).toMatchObject({ financed: 800, wentOut: 800 });
  });

  it("refundable is what went out less what was refunded, never below zero", () => {
    expect(refundableAmount(approved)).toBe(500);
    expect(refundableAmount({ ...approved, wentOut: 0, refunded: 0 })).toBe(0);
    expect(refundableAmount({ ...approved, wentOut: -200, refunded: 0 })).toBe(0);
  });

  it("refuses a send that would leave the discount larger than the goods that went out", () => {
    const before: Ledger = { currency: "CZK", approved: 1500, financed: 1500, wentOut: -500, refunded: 0 };
    const result = move(before, { wentOut: -400, shipped: true, attribute: "items" });
    expect(result.ok ? [] : result.problems.map((p) => p.code)).toEqual(["DISCOUNT_NOT_SEPARABLE"]);
    expect(move(before, { wentOut: 1500, shipped: true }).ok).toBe(true);
  });

  it("refuses any refund before goods went out, saying how to reduce the order instead", () => {
    const nothingOut: Ledger = { currency: "CZK", approved: 2500, financed: 2500, wentOut: 0, refunded: 0 };
    const result = move(nothingOut, { refund: 1, attribute: "totalPrice.amount" });
    expect(result.ok ? [] : result.problems).toEqual([
      {
        code: "REFUND_LIMIT_EXCEEDED",
        message:
          "nothing is refundable before goods go out (a refund of CZK\u00a00.01 was asked): reduce the order with cancel items or change order instead",
        attribute: "totalPrice.amount",
      },
    ]);
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
          message:
            "a refund of CZK\u00a05.01 exceeds the CZK\u00a05.00 still refundable (what was sent or delivered, less refunds): refund at most that",
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
    expect(
      move(
        { currency: "CZK", approved: null, financed: 800, wentOut: 0, refunded: 0 },
        { financed: 5000, reprice: true },
      ).ok,
    ).toBe(true);
  });

  it("takes no negative refund: that is a fault of the caller, not a request", () => {
    expect(() => move(approved, { refund: -1 })).toThrow(RangeError);
  });

  it("approval fixes the approved amount at the financed total", () => {
    expect(approve({ currency: "CZK", approved: null, financed: 800, wentOut: 0, refunded: 0 })).toEqual({
      currency: "CZK",
      approved: 800,
      financed: 800,
      wentOut: 0,
      refunded: 0,
    });
  });
});
