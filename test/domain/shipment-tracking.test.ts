import { describe, expect, it } from "vitest";
import { planSend } from "../../src/domain/order-operations";
import type { Current } from "../../src/domain/plan";
import { MAX_TRACKING, planTracking } from "../../src/domain/shipment-tracking";
import { type Shipment, sentBy, shipmentOf } from "../../src/domain/shipments";
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
