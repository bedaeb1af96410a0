import { describe, expect, it } from "vitest";
import { planDeliver, planReturn, planSend } from "../../src/domain/order-operations";
import type { Current } from "../../src/domain/plan";
import { sentBy, shipmentOf } from "../../src/domain/shipments";
import { application, applied, context, item } from "../support/domain";

const ORDER = { currency: "CZK", deliveryCarrier: { carrierId: "PPL" } };

function order(ctx = context()): Current {
  return application([item("KB-01", 10_000), item("CABLE", 900, 3)], "READY", ctx);
}

describe("shipments", () => {
  it("hold what a send took out, with the partner's reference and the tracking number as its first tracking", () => {
    const ctx = context();
    const start = order(ctx);
    const after = applied(
      start,
      planSend(start, { items: [{ code: "CABLE", quantity: 2 }], sentDate: "2026-11-23" }, ctx),
    );
    const sent = sentBy(start.lines, after.lines);
    const request = { reference: "INV-2026-0042", deliveryTrackingNumber: "DR1234567890" };
    expect(shipmentOf(sent, request, ORDER, ctx)).toEqual({
      id: expect.any(String),
      reference: "INV-2026-0042",
      items: [
        {
          code: "CABLE",
          ean: null,
          name: "CABLE",
          type: "PHYSICAL",
          quantity: 2,
          totalPrice: { amount: 600, currency: "CZK" },
        },
      ],
      totalPrice: { amount: 600, currency: "CZK" },
      sentDate: "2026-11-23",
      deliveryCarrier: { carrierId: "PPL" },
      tracking: [{ number: "DR1234567890", carrier: "PPL", url: null, addedAt: ctx.at }],
      createdAt: ctx.at,
      lineIds: [sent[0]!.id],
    });
  });

  it("hold, for a deliver, the goods it sent too, and none when everything it delivered was sent before", () => {
    const ctx = context();
    const start = order(ctx);
    const sent = applied(start, planSend(start, { items: [{ code: "KB-01" }], sentDate: "2026-11-23" }, ctx));
    const delivered = applied(sent, planDeliver(sent, { deliveryDate: "2026-11-25" }, ctx));
    const taken = sentBy(sent.lines, delivered.lines);
    expect(taken.map((l) => [l.code, l.state])).toEqual([["CABLE", "DELIVERED"]]);
    expect(shipmentOf(taken, {}, { ...ORDER, deliveryCarrier: null }, ctx)).toMatchObject({
      reference: null,
      sentDate: "2026-11-25",
      deliveryCarrier: null,
      tracking: [],
      totalPrice: { amount: 900 },
    });
    const again = applied(sent, planDeliver(sent, { items: [{ code: "KB-01" }], deliveryDate: "2026-11-25" }, ctx));
    expect(shipmentOf(sentBy(sent.lines, again.lines), {}, ORDER, ctx)).toBeUndefined();
  });

  it("never hold a discount that left with returned goods without being sent", () => {
    const ctx = context();
    const start = application([item("KB-01", 10_000), item("DISC", -500)], "READY", ctx);
    const sent = applied(start, planSend(start, { items: [{ code: "KB-01" }], sentDate: "2026-11-23" }, ctx));
    const returned = applied(sent, planReturn(sent, {}, ctx));
    expect(returned.lines.map((l) => [l.code, l.state, l.sentDate])).toEqual([
      ["KB-01", "RETURNED", "2026-11-23"],
      ["DISC", "RETURNED", null],
    ]);
    expect(sentBy(sent.lines, returned.lines)).toEqual([]);
  });
});
