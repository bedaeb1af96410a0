import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { countRows, eventsOf } from "../../support/factories";
import { app, approved, order, put } from "../../support/orders";
import { closeNow, entriesOf } from "../../support/settlement-api";

const CLOSE = "/financing/v1/sandbox/payouts/close";

describe("POST /financing/v1/sandbox/payouts/close", () => {
  it("closes the partner's open entries into a payout, pays it, and tells the application once (READY_PAID)", async () => {
    const { token } = await signIn();
    const other = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "KB-01", quantity: 1 }] });
    await shippedElsewhere(other.token);
    const [payout, ...more] = await closeNow(token);
    expect(more).toEqual([]);
    // The keyboard's 760.00, less 2.5 % (19.00) and 21 % VAT on that (3.99).
    expect(payout).toMatchObject({
      currency: "CZK",
      status: "PAID",
      totals: { sales: 76000, refunds: 0, fees: -1900, feeVat: -399, net: 73701 },
      entries: 3,
      paidAt: expect.any(String),
    });
    expect(payout!.reference).toMatch(/^[1-9][0-9]{9}$/);
    expect((await entriesOf(token, payout!.id)).reduce((sum, e) => sum + e.amount, 0)).toBe(payout!.totals.net);
    expect((await order(token, id)).applicationInfo).toMatchObject({ state: "READY", stateReason: "READY_PAID" });
    expect((await eventsOf(id)).map((e) => e.stateReason)).toEqual([
      "PROCESSING_REDIRECT_NEEDED",
      "READY_SHIPPED",
      "READY_PAID",
    ]);
    // The other partner's entries are its own: still open.
    expect(await countRows("settlement_entries", "partner_id = ? AND payout_id IS NULL", other.partner.id)).toBe(3);

    // More goes out and is paid: a second payout of what is new only; the reason is told once.
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    const [second] = await closeNow(token);
    expect(second!.totals.sales).toBe(16000);
    expect((await eventsOf(id)).map((e) => e.stateReason)).toEqual([
      "PROCESSING_REDIRECT_NEEDED",
      "READY_SHIPPED",
      "READY_PAID",
    ]);
    expect((await order(token, id)).applicationInfo.stateReason).toBe("READY_PAID");
    expect(await closeNow(token)).toEqual([]);
  });

  it("pays nothing while the open entries add up to nothing positive: they wait", async () => {
    const { token, partner } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    await closeNow(token);
    const refund = await call("POST", `${app(id)}/refunds`, {
      token,
      body: { totalPrice: { amount: 16000, currency: "CZK" } },
    });
    expect(refund.status).toBe(201);
    expect(await closeNow(token)).toEqual([]);
    expect(await countRows("settlement_entries", "partner_id = ? AND payout_id IS NULL", partner.id)).toBe(1);
    const balance = await json<{ data: { net: number }[] }>(await call("GET", "/financing/v1/balance", { token }));
    expect(balance.data.map((b) => b.net)).toEqual([-16000]);
  });

  it("does not exist outside the sandbox", async () => {
    const { token } = await signIn();
    const res = await call("POST", CLOSE, { token, vars: { SANDBOX: "false" } });
    expect(res.status).toBe(404);
  });
});

async function shippedElsewhere(token: string) {
  const id = await approved(token);
  await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
}
