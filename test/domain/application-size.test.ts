import { describe, expect, it } from "vitest";
import { planCreate } from "../../src/domain/application-operations";
import { jsonBytes, linesBytes, MAX_ANSWER_BYTES, MAX_APPLICATION_BYTES } from "../../src/domain/application-size";
import type { OrderItem } from "../../src/domain/order-lines";
import { planCancelItems, planSend } from "../../src/domain/order-operations";
import { application, applied, context, refusal } from "../support/domain";

const ctx = context();
const policy = { requireHttps: true, allowedPorts: [] };

/** An item with every text at the longest its schema accepts (src/routes/applications/schema.ts). */
function largestItem(i: number, quantity = 3): OrderItem {
  return {
    code: `C${i}`.padEnd(200, "c"),
    ean: "e".repeat(64),
    name: "n".repeat(255),
    type: "PHYSICAL",
    variant: "v".repeat(255),
    producer: "p".repeat(255),
    categories: Array.from({ length: 20 }, () => "k".repeat(255)),
    productUrl: `https://shop.example.com/${"u".repeat(2000)}`,
    quantity,
    totalPrice: { amount: 100 * quantity },
    totalVat: { vatRate: 21, amount: 17 * quantity },
  };
}

describe("the size of an application", () => {
  it("measures content as JSON in UTF-8", () => {
    expect(jsonBytes({ a: "ž" })).toBe('{"a":"ž"}'.length + 1);
    expect(linesBytes([{ a: 1 }, { b: "xy" }])).toBe(7 + 10);
  });

  it("keeps the budget far below D1's 2 MB per value, and below an answer's ceiling", () => {
    expect(MAX_APPLICATION_BYTES * 4).toBeLessThanOrEqual(2_000_000);
    expect(MAX_APPLICATION_BYTES).toBeLessThan(MAX_ANSWER_BYTES / 1.5);
  });

  it("refuses a creation past the budget with APPLICATION_SIZE_LIMIT_REACHED at order.items", () => {
    const items = Array.from({ length: 100 }, (_, i) => largestItem(i, 1));
    const total = items.reduce((sum, i) => sum + i.totalPrice.amount, 0);
    const plan = planCreate(
      {
        type: "DEFERRED_PAYMENT",
        agreementTermsAndConditions: true,
        customer: { email: "jana@example.com", fullName: "Jana" },
        order: {
          number: "ORD-1",
          variableSymbols: [],
          totalPrice: { amount: total, currency: "CZK" },
          totalVat: [{ vatRate: 21, amount: 1700, currency: "CZK" }],
          items: items.map(({ unitPrice: _, unitVat: __, ...i }) => ({
            ...i,
            totalPrice: { ...i.totalPrice, currency: "CZK" },
            totalVat: { ...i.totalVat, currency: "CZK" },
          })),
        },
        merchantUrls: {
          approvedRedirect: "https://shop.example.com/ok",
          rejectedRedirect: "https://shop.example.com/no",
          notificationEndpoint: "https://shop.example.com/hooks",
        },
      },
      { ...ctx, urlPolicy: policy },
    );
    expect(plan.ok || plan.problems).toEqual([
      expect.objectContaining({ code: "APPLICATION_SIZE_LIMIT_REACHED", attribute: "order.items" }),
    ]);
  });

  it("refuses a split that would grow past the budget, and keeps what it holds exact after each write", () => {
    // As many of the largest items as fit, each of 3 units: every partial send splits one.
    const fit = Math.floor(MAX_APPLICATION_BYTES / linesBytes(application([largestItem(0)]).lines)) - 1;
    let current = application(
      Array.from({ length: fit }, (_, i) => largestItem(i)),
      "READY",
      ctx,
    );
    let splits = 0;
    for (let i = 0; i < fit; i++) {
      const plan = planSend(
        current,
        { items: [{ code: current.lines[i]!.code, quantity: 1 }], sentDate: "2026-11-23" },
        ctx,
      );
      if (!plan.ok) {
        expect(refusal(plan)).toEqual(["APPLICATION_SIZE_LIMIT_REACHED"]);
        break;
      }
      current = applied(current, plan);
      splits++;
      expect(current.application.contentBytes).toBe(linesBytes(current.lines));
    }
    expect(splits).toBeGreaterThan(0);
    expect(splits).toBeLessThan(fit);
    expect(current.application.contentBytes).toBeLessThanOrEqual(MAX_APPLICATION_BYTES);
    // What shrinks or keeps the size is never refused: cancelling the rest of an item.
    const cancel = planCancelItems(current, { items: [{ code: current.lines.at(-1)!.code }] }, ctx);
    expect(cancel.ok).toBe(true);
  });
});
