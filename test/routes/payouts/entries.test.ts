import { describe, expect, it } from "vitest";
import { call, signIn } from "../../support/api";
import { app, approved, put } from "../../support/orders";
import { closeNow, entriesOf } from "../../support/settlement-api";

describe("GET /financing/v1/payouts/{payoutId}/entries", () => {
  it("lists what the payout took, each once, in the order entered, adding up to its net", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "KB-01" }], reference: "FV-1" });
    await put(token, `${app(id)}/order/return`, { items: [{ code: "KB-01", quantity: 1 }] });
    const [payout] = await closeNow(token);
    const entries = await entriesOf(token, payout!.id);
    expect(entries.map((e) => [e.type, e.amount, e.shipmentReference ?? null])).toEqual([
      ["SALE", 152000, "FV-1"],
      ["FEE", -3800, "FV-1"],
      ["FEE_VAT", -798, "FV-1"],
      ["REFUND", -76000, null],
    ]);
    expect(entries.every((e) => e.payoutId === payout!.id && e.applicationId === id)).toBe(true);
    expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(payout!.totals.net);
    expect(entries).toHaveLength(payout!.entries);
    expect(entries[3]!.refundId).toEqual(expect.any(String));
    const other = await signIn();
    expect((await call("GET", `/financing/v1/payouts/${payout!.id}/entries`, { token: other.token })).status).toBe(404);
  });
});
