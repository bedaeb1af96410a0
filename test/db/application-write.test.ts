import { describe, expect, it } from "vitest";
import { call, signIn } from "../support/api";
import { applicationRequest, createApplication, forceState } from "../support/factories";
import { app } from "../support/orders";
import { dbOfApplication } from "../support/shards";

/** An order of `count` items of 100.00 each. */
function manyItems(count: number) {
  const body = applicationRequest();
  const items = Array.from({ length: count }, (_, i) => ({
    code: `ITEM-${i + 1}`,
    name: `Item ${i + 1}`,
    type: "PHYSICAL",
    quantity: 1,
    totalPrice: { amount: 10000, currency: "CZK" },
    totalVat: { vatRate: 21, amount: 1736, currency: "CZK" },
  }));
  return {
    ...body,
    order: {
      ...body.order,
      items,
      totalPrice: { amount: count * 10000, currency: "CZK" },
      totalVat: [{ vatRate: 21, amount: count * 1736, currency: "CZK" }],
    },
  };
}

describe("the write path of a plan", () => {
  it("writes a send's lines, shipment and settlement entries in the send's own batch, the lines and the entries in one statement each however many", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token, manyItems(100));
    await forceState(id, "READY", "READY_TO_SHIP");
    const res = await call("PUT", `${app(id)}/order/send`, { token, body: {}, vars: { COUNT_BINDINGS: "true" } });
    expect(res.status).toBe(200);
    // One read; one batch: the application's guarded update, its guard, the event, the 100 lines'
    // update, the shipment, the 300 entries, and the audit log's entry with its count.
    expect(res.headers.get("X-Count-D1-Round-Trips")).toBe("2");
    expect(res.headers.get("X-Count-D1-Statements")).toBe(String(1 + 3 + 1 + 1 + 1 + 2));
    const lines = await (await dbOfApplication(id))
      .prepare(
        "SELECT state, count(*) AS n, count(sent_date) AS dated, sum(total_price_amount) AS total FROM order_lines WHERE application_id = ? GROUP BY state",
      )
      .bind(id)
      .all();
    expect(lines.results).toEqual([{ state: "SENT", n: 100, dated: 100, total: 1000000 }]);
    const entries = await (await dbOfApplication(id))
      .prepare(
        "SELECT type, count(*) AS n, sum(amount) AS total FROM settlement_entries WHERE application_id = ? GROUP BY type ORDER BY type",
      )
      .bind(id)
      .all();
    expect(entries.results).toEqual([
      { type: "FEE", n: 100, total: -25000 },
      { type: "FEE_VAT", n: 100, total: -5300 },
      { type: "SALE", n: 100, total: 1000000 },
    ]);
    const shipment = await (await dbOfApplication(id))
      .prepare(
        "SELECT total_amount AS total, json_array_length(line_ids) AS lines FROM shipments WHERE application_id = ?",
      )
      .bind(id)
      .first();
    expect(shipment).toEqual({ total: 1000000, lines: 100 });
  });
});
