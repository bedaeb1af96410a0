import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { app, approved, put } from "../../support/orders";
import { shipmentsOf } from "../../support/settlement-api";

describe("GET …/shipments", () => {
  it("lists a shipment per send, with what it took out, the reference and the first tracking entry", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    expect(await shipmentsOf(token, id)).toEqual([]);
    await put(token, `${app(id)}/order/send`, {
      items: [{ code: "KB-01", quantity: 1 }],
      sentDate: "2026-11-23",
      reference: "FV-2026-1",
      deliveryTrackingNumber: "PPL-1",
    });
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    const shipments = await shipmentsOf(token, id);
    expect(shipments).toEqual([
      {
        id: expect.any(String),
        reference: "FV-2026-1",
        items: [
          {
            code: "KB-01",
            ean: expect.any(String),
            name: expect.any(String),
            type: "PHYSICAL",
            quantity: 1,
            totalPrice: { amount: 76000, currency: "CZK" },
          },
        ],
        totalPrice: { amount: 76000, currency: "CZK" },
        sentDate: "2026-11-23",
        deliveryCarrier: { carrierId: "PPL" },
        tracking: [{ number: "PPL-1", carrier: "PPL", addedAt: expect.stringMatching(/\+00:00$/) }],
        createdAt: expect.stringMatching(/\+00:00$/),
      },
      expect.objectContaining({ items: [expect.objectContaining({ code: "BK-7" })], tracking: [] }),
    ]);
    expect(shipments[0]).not.toHaveProperty("lineIds");
  });

  it("makes a shipment of a deliver of items not sent before, and none of a deliver of items sent", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    await put(token, `${app(id)}/order/deliver`, { items: [{ code: "BK-7" }] });
    expect(await shipmentsOf(token, id)).toHaveLength(1);
    await put(token, `${app(id)}/order/deliver`, { items: [{ code: "SHIP" }], reference: "DL-7" });
    const shipments = await shipmentsOf(token, id);
    expect(shipments.map((s) => [s.reference, s.items.map((i) => i.code)])).toEqual([
      [undefined, ["BK-7"]],
      ["DL-7", ["SHIP"]],
    ]);
  });

  it("is another partner's 404, and pages as every list does", async () => {
    const { token } = await signIn();
    const other = await signIn();
    const id = await approved(token);
    for (const code of ["KB-01", "BK-7", "SHIP"]) await put(token, `${app(id)}/order/send`, { items: [{ code }] });
    expect((await call("GET", `${app(id)}/shipments`, { token: other.token })).status).toBe(404);
    const first = await json<{ data: unknown[]; pagingInfo: { nextPage?: string } }>(
      await call("GET", `${app(id)}/shipments?limit=2`, { token }),
    );
    expect(first.data).toHaveLength(2);
    expect(first.pagingInfo.nextPage).toMatch(/limit=2&after=/);
    const bad = await call("GET", `${app(id)}/shipments?after=nope`, { token });
    expect(bad.status).toBe(400);
  });
});
