import { describe, expect, it } from "vitest";
import { planDeliver, planReturn, planSend } from "../../src/domain/order-operations";
import type { Current } from "../../src/domain/plan";
import { MAX_TRACKING, planTracking, type Shipment, sentBy, shipmentOf } from "../../src/domain/shipments";
import { application, applied, context, item } from "../support/domain";

const ORDER = { currency: "CZK", deliveryCarrier: { carrierId: "PPL" } };

function order(ctx = context()): Current {
  return application([item("KB-01", 10_000), item("CABLE", 900, 3)], "READY", ctx);
}

/** A shipment of the whole order, with no tracking yet. */
function shipment(): Shipment {
  const ctx = context();
  const start = order(ctx);
  const after = applied(start, planSend(start, { sentDate: "2026-11-23" }, ctx));
  return shipmentOf(sentBy(start.lines, after.lines), {}, ORDER, ctx)!;
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

describe("tracking added after dispatch", () => {
  const at = Date.UTC(2026, 10, 24, 9);

  it("is appended with its time", () => {
    const result = planTracking(
      shipment(),
      { number: "CZ0042", carrier: "Zásilkovna", url: "https://tracking.packeta.com/cs/?id=Z0042" },
      { at },
    );
    expect(result.ok && result.value.tracking).toEqual([
      { number: "CZ0042", carrier: "Zásilkovna", url: "https://tracking.packeta.com/cs/?id=Z0042", addedAt: at },
    ]);
  });

  it(`holds at most ${MAX_TRACKING} entries; a repeated entry (a retry) leaves the shipment as it is`, () => {
    let current = shipment();
    for (let i = 1; i <= MAX_TRACKING; i++) {
      const next = planTracking(current, { number: `N${i}` }, { at });
      if (!next.ok) throw new Error(`refused entry ${i}`);
      current = next.value;
    }
    expect(planTracking(current, { number: "N11" }, { at })).toEqual({
      ok: false,
      problems: [
        {
          code: "TRACKING_LIMIT_REACHED",
          message: "a shipment holds at most 10 tracking entries",
          attribute: "number",
        },
      ],
    });
    expect(planTracking(current, { number: "N3" }, { at: at + 1 })).toEqual({ ok: true, value: current });
  });

  it("refuses a number or carrier empty or too long, and a link that is not https to a public host", () => {
    const result = planTracking(
      shipment(),
      { number: " ", carrier: "x".repeat(101), url: "http://tracking.example.com/1" },
      { at },
    );
    expect(result.ok || result.problems.map((p) => [p.code, p.attribute, p.message])).toEqual([
      ["INVALID_VALUE", "number", "must be 1 to 100 characters"],
      ["INVALID_VALUE", "carrier", "must be 1 to 100 characters"],
      ["INVALID_VALUE", "url", "must be an https URL"],
    ]);
    for (const url of [
      "https://10.0.0.1/t",
      "https://user:pw@tracking.example.com/",
      `https://a.cz/${"x".repeat(2048)}`,
    ]) {
      const refused = planTracking(shipment(), { number: "N1", url }, { at });
      expect(refused.ok || refused.problems.map((p) => p.attribute)).toEqual(["url"]);
    }
    expect(planTracking(shipment(), { number: "x".repeat(100) }, { at }).ok).toBe(true);
    expect(planTracking(shipment(), { number: "x".repeat(101) }, { at }).ok).toBe(false);
  });
});
