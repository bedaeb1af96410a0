import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { context } from "../support/domain";
import { scenario } from "../support/order-sequences";
import { checkAccount, financingType, openAccount, operate, partnerTerms } from "../support/settlement-sequences";

const DAY = 86_400_000;

describe("settlement entries over random operation sequences, with time passing and random terms", () => {
  it("enter every sale, fee and refund exactly once: the sales are the payable lines, the refunds the refunded total", () => {
    const reached = new Set<string>();
    fc.assert(
      fc.property(scenario(14, true), partnerTerms, financingType, ({ items, start, operations }, terms, type) => {
        const ctx = context();
        const account = openAccount(items, start, ctx, { id: "app-1", partnerId: "partner-1", type }, terms);
        for (const op of operations) {
          if (op.kind === "wait") {
            ctx.at += Math.round(op.days * DAY);
            continue;
          }
          const { accepted, added } = operate(account, op, ctx);
          if (!accepted) continue;
          checkAccount(account);
          for (const e of added) reached.add(`${terms.settlesOn} ${op.kind} ${e.type} ${e.amount < 0 ? "-" : "+"}`);
        }
      }),
      { numRuns: 1500 },
    );
    // The sequences reach every way money is entered: sales at sending and at delivery (and a return
    // under DELIVERED), discounts' negative sales, refunds by returns and by the refunds endpoint.
    expect([...reached]).toEqual(
      expect.arrayContaining([
        "SENT send SALE +",
        "SENT send SALE -",
        "SENT deliver SALE +",
        "DELIVERED deliver SALE +",
        "DELIVERED deliver SALE -",
        "DELIVERED return SALE +",
        "DELIVERED return REFUND -",
        "SENT return REFUND -",
        "SENT refund REFUND -",
        "SENT send FEE +",
      ]),
    );
  });
});
