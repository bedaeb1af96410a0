import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMoney, type OrderMoneyInput, orderConsistencyProblems, proRata } from "../../src/domain/money";

/** A consistent order: 2 × 500 at 21 % VAT, 1 × 200 at 10 %, a discount of -100 at 21 %. */
function validOrder(): OrderMoneyInput {
  return {
    totalPrice: { amount: 1100, currency: "EUR" },
    totalVat: [
      { vatRate: 21, amount: 189, currency: "EUR" },
      { vatRate: 10, amount: 18, currency: "EUR" },
    ],
    items: [
      {
        type: "PHYSICAL",
        quantity: 2,
        unitPrice: { amount: 500, currency: "EUR" },
        totalPrice: { amount: 1000, currency: "EUR" },
        unitVat: { vatRate: 21, amount: 105, currency: "EUR" },
        totalVat: { vatRate: 21, amount: 210, currency: "EUR" },
      },
      {
        type: "SHIPPING_FEE",
        quantity: 1,
        totalPrice: { amount: 200, currency: "EUR" },
        totalVat: { vatRate: 10, amount: 18, currency: "EUR" },
      },
      {
        type: "DISCOUNT",
        quantity: 1,
        totalPrice: { amount: -100, currency: "EUR" },
        totalVat: { vatRate: 21, amount: -21, currency: "EUR" },
      },
    ],
  };
}

function problemsOf(change: (order: OrderMoneyInput) => void, prefix?: string) {
  const order = validOrder();
  change(order);
  return orderConsistencyProblems(order, prefix).map(({ code, attribute }) => ({ code, attribute }));
}

describe("orderConsistencyProblems", () => {
  it("a consistent order has no problems", () => {
    expect(orderConsistencyProblems(validOrder())).toEqual([]);
  });

  it("an item price in another currency is CURRENCY_MISMATCH on that currency", () => {
    expect(problemsOf((o) => (o.items[1]!.totalPrice.currency = "CZK"))).toEqual([
      { code: "CURRENCY_MISMATCH", attribute: "order.items[1].totalPrice.currency" },
    ]);
  });

  it("every currency of the order is checked against the order total's", () => {
    expect(
      problemsOf((o) => {
        o.totalVat[1]!.currency = "CZK";
        o.items[0]!.unitPrice!.currency = "CZK";
        o.items[0]!.unitVat!.currency = "USD";
        o.items[2]!.totalVat.currency = "CZK";
      }),
    ).toEqual([
      { code: "CURRENCY_MISMATCH", attribute: "order.totalVat[1].currency" },
      { code: "CURRENCY_MISMATCH", attribute: "order.items[0].unitPrice.currency" },
      { code: "CURRENCY_MISMATCH", attribute: "order.items[0].unitVat.currency" },
      { code: "CURRENCY_MISMATCH", attribute: "order.items[2].totalVat.currency" },
    ]);
  });

  it("an order total different from the items' sum is TOTAL_PRICE_MISMATCH", () => {
    expect(problemsOf((o) => (o.totalPrice.amount = 1101))).toEqual([
      { code: "TOTAL_PRICE_MISMATCH", attribute: "order.totalPrice.amount" },
    ]);
  });

  it("an item total different from unit price × quantity is UNIT_PRICE_MISMATCH", () => {
    expect(
      problemsOf((o) => {
        o.items[0]!.quantity = 3;
      }),
    ).toEqual([{ code: "UNIT_PRICE_MISMATCH", attribute: "order.items[0].totalPrice.amount" }]);
  });

  it("an item without unit price is not checked against one", () => {
    expect(
      problemsOf((o) => {
        o.items[1]!.quantity = 7;
      }),
    ).toEqual([]);
  });

  it("order VAT with a wrong amount for a rate is VAT_MISMATCH", () => {
    expect(problemsOf((o) => (o.totalVat[0]!.amount = 210))).toEqual([
      { code: "VAT_MISMATCH", attribute: "order.totalVat" },
    ]);
  });

  it("order VAT missing a rate the items use is VAT_MISMATCH", () => {
    expect(problemsOf((o) => o.totalVat.pop())).toEqual([{ code: "VAT_MISMATCH", attribute: "order.totalVat" }]);
  });

  it("order VAT with a rate no item uses is VAT_MISMATCH", () => {
    expect(problemsOf((o) => o.totalVat.push({ vatRate: 15, amount: 0, currency: "EUR" }))).toEqual([
      { code: "VAT_MISMATCH", attribute: "order.totalVat" },
    ]);
  });

  it("order VAT listing a rate twice is VAT_MISMATCH even when the amounts add up", () => {
    expect(
      problemsOf((o) => {
        o.totalVat[0]!.amount = 100;
        o.totalVat.push({ vatRate: 21, amount: 89, currency: "EUR" });
      }),
    ).toEqual([{ code: "VAT_MISMATCH", attribute: "order.totalVat" }]);
  });

  it("order VAT may list the rates in any order", () => {
    expect(problemsOf((o) => o.totalVat.reverse())).toEqual([]);
  });

  it("a negative item other than DISCOUNT is NEGATIVE_AMOUNT", () => {
    expect(
      problemsOf((o) => {
        o.items[2]!.type = "GIFT_CARD";
      }),
    ).toEqual([{ code: "NEGATIVE_AMOUNT", attribute: "order.items[2].totalPrice.amount" }]);
  });

  it("a positive DISCOUNT is NEGATIVE_AMOUNT", () => {
    expect(
      problemsOf((o) => {
        o.items[1]!.type = "DISCOUNT";
      }),
    ).toEqual([{ code: "NEGATIVE_AMOUNT", attribute: "order.items[1].totalPrice.amount" }]);
  });

  it("a DISCOUNT of zero is accepted", () => {
    expect(
      problemsOf((o) => {
        o.items[2]!.totalPrice.amount = 0;
        o.items[2]!.totalVat.amount = 0;
        o.totalPrice.amount = 1200;
        o.totalVat[0]!.amount = 210;
      }),
    ).toEqual([]);
  });

  it("an order total of zero is NON_POSITIVE_TOTAL", () => {
    const order: OrderMoneyInput = {
      totalPrice: { amount: 0, currency: "EUR" },
      totalVat: [{ vatRate: 0, amount: 0, currency: "EUR" }],
      items: [
        {
          type: "DIGITAL",
          quantity: 1,
          totalPrice: { amount: 0, currency: "EUR" },
          totalVat: { vatRate: 0, amount: 0, currency: "EUR" },
        },
      ],
    };
    expect(orderConsistencyProblems(order).map((p) => [p.code, p.attribute])).toEqual([
      ["NON_POSITIVE_TOTAL", "order.totalPrice.amount"],
    ]);
  });

  it("an order that is only a discount is NON_POSITIVE_TOTAL", () => {
    const order: OrderMoneyInput = {
      totalPrice: { amount: -100, currency: "EUR" },
      totalVat: [{ vatRate: 21, amount: -21, currency: "EUR" }],
      items: [
        {
          type: "DISCOUNT",
          quantity: 1,
          totalPrice: { amount: -100, currency: "EUR" },
          totalVat: { vatRate: 21, amount: -21, currency: "EUR" },
        },
      ],
    };
    expect(orderConsistencyProblems(order).map((p) => p.code)).toEqual(["NON_POSITIVE_TOTAL"]);
  });

  it("reports every problem at once, each with a message", () => {
    const problems = orderConsistencyProblems(
      (() => {
        const o = validOrder();
        o.items[1]!.totalPrice.currency = "CZK";
        o.totalPrice.amount = 999;
        o.items[0]!.quantity = 1;
        o.items[2]!.type = "FEE";
        o.totalVat[1]!.amount = 0;
        return o;
      })(),
    );
    expect(problems.map(({ code, attribute }) => ({ code, attribute }))).toEqual(
      expect.arrayContaining([
        { code: "CURRENCY_MISMATCH", attribute: "order.items[1].totalPrice.currency" },
        { code: "TOTAL_PRICE_MISMATCH", attribute: "order.totalPrice.amount" },
        { code: "UNIT_PRICE_MISMATCH", attribute: "order.items[0].totalPrice.amount" },
        { code: "NEGATIVE_AMOUNT", attribute: "order.items[2].totalPrice.amount" },
        { code: "VAT_MISMATCH", attribute: "order.totalVat" },
      ]),
    );
    expect(problems).toHaveLength(5);
    for (const p of problems) expect(p.message).not.toBe("");
  });

  it("attributes start with the prefix given", () => {
    expect(problemsOf((o) => (o.totalPrice.amount = 1), "body.order")).toEqual([
      { code: "TOTAL_PRICE_MISMATCH", attribute: "body.order.totalPrice.amount" },
    ]);
  });
});

describe("proRata", () => {
  it("gives the exact share when it divides evenly", () => {
    expect(proRata(1000, 2, 5)).toBe(400);
  });

  it("rounds the share toward zero and the remainder takes the rest", () => {
    const piece = proRata(1000, 1, 3);
    expect(piece).toBe(333);
    expect(1000 - piece).toBe(667);
  });

  it("rounds a negative share toward zero", () => {
    const piece = proRata(-1000, 1, 3);
    expect(piece).toBe(-333);
    expect(-1000 - piece).toBe(-667);
    expect(proRata(-1, 1, 2)).toBe(0);
    expect(Object.is(proRata(-1, 1, 2), -0)).toBe(false);
  });

  it("gives nothing for no part and everything for the whole", () => {
    expect(proRata(777, 0, 7)).toBe(0);
    expect(proRata(-777, 7, 7)).toBe(-777);
  });

  it("stays exact where total × part passes 2^53", () => {
    const total = 9_007_199_254_740_991; // Number.MAX_SAFE_INTEGER
    expect(proRata(total, 3, 7)).toBe(Number((BigInt(total) * 3n) / 7n));
  });

  it("a piece and its remainder always sum to the total, with the total's sign and no larger", () => {
    const split = fc
      .integer({ min: 1, max: 1000 })
      .chain((whole) =>
        fc.tuple(
          fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
          fc.integer({ min: 0, max: whole }),
          fc.constant(whole),
        ),
      );
    fc.assert(
      fc.property(split, ([total, part, whole]) => {
        const piece = proRata(total, part, whole);
        const rest = total - piece;
        expect(Number.isInteger(piece)).toBe(true);
        expect(piece + rest).toBe(total);
        for (const amount of [piece, rest]) {
          expect(amount === 0 || Math.sign(amount) === Math.sign(total)).toBe(true);
          expect(Math.abs(amount)).toBeLessThanOrEqual(Math.abs(total));
        }
        // Within one unit of the exact share.
        expect(Math.abs(piece - (total * part) / whole)).toBeLessThan(1);
      }),
      { numRuns: 2000 },
    );
  });
});

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
