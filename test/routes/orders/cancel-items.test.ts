import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { createApplication } from "../../support/factories";
import { app, approved, discountedAndApproved, expect422, type OrderView, order, put } from "../../support/orders";

const states = (o: OrderView) => o.items.map((i) => [i.code, i.quantity, i.state]);

describe("PUT …/order/cancel", () => {
  it("cancels part of a line and lowers the financed total", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const body = await json<OrderView>(
      await put(token, `${app(id)}/order/cancel`, { items: [{ code: "KB-01", quantity: 1 }] }),
    );
    expect(states(body)).toEqual([
      ["KB-01", 1, "PROCESSING"],
      ["KB-01", 1, "CANCELLED"],
      ["BK-7", 1, "PROCESSING"],
      ["SHIP", 1, "PROCESSING"],
    ]);
    expect(body.totalPrice.amount).toBe(124000);
    expect(body.totalVat).toEqual([
      { vatRate: 21, amount: 31400 - 13190, currency: "CZK" },
      { vatRate: 12, amount: 1714, currency: "CZK" },
    ]);
    // Nothing went out: nothing is refundable yet.
    expect(body.refundablePrice.amount).toBe(0);
    expect(body.applicationInfo.stateReason).toBe("READY_TO_SHIP");
  });

  it("cancelling every remaining item cancels the application (CANCELLED_NOT_PAID)", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const body = await json<OrderView>(await put(token, `${app(id)}/order/cancel`));
    expect(body.state).toBe("CANCELLED");
    expect(body.applicationInfo).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
  });

  it("does not cancel sent items (ITEM_NOT_FOUND), and cancels the rest of the order only", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "KB-01" }] });
    await expect422(await put(token, `${app(id)}/order/cancel`, { items: [{ code: "KB-01" }] }), "ITEM_NOT_FOUND");
    const body = await json<OrderView>(await put(token, `${app(id)}/order/cancel`));
    expect(states(body)).toEqual([
      ["KB-01", 2, "SENT"],
      ["BK-7", 1, "CANCELLED"],
      ["SHIP", 1, "CANCELLED"],
    ]);
    expect(body.applicationInfo.stateReason).toBe("READY_SHIPPED");
  });

  it("also works before approval", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const res = await put(token, `${app(id)}/order/cancel`, { items: [{ code: "SHIP" }] });
    expect(res.status).toBe(200);
    expect((await json<OrderView>(res)).applicationInfo.state).toBe("PROCESSING");
  });

  it("cancels what never went out whatever was refunded: refunds are only of what went out", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    // More than the book is refused; the book's price is refundable.
    await expect422(
      await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 190000, currency: "CZK" } } }),
      "REFUND_LIMIT_EXCEEDED",
    );
    const refund = { totalPrice: { amount: 16000, currency: "CZK" } };
    expect((await call("POST", `${app(id)}/refunds`, { token, body: refund })).status).toBe(201);
    const body = await json<OrderView>(await put(token, `${app(id)}/order/cancel`));
    expect(states(body)).toEqual([
      ["KB-01", 2, "CANCELLED"],
      ["BK-7", 1, "SENT"],
      ["SHIP", 1, "CANCELLED"],
    ]);
    expect(body).toMatchObject({
      totalPrice: { amount: 16000 },
      refundedPrice: { amount: 16000 },
      refundablePrice: { amount: 0 },
    });
  });
});

describe("a DISCOUNT line on cancel", () => {
  it("is refused on its own, so the financed total never rises above the approved amount", async () => {
    const { token } = await signIn();
    const id = await discountedAndApproved(token);
    const before = await order(token, id);
    const res = await put(token, `${app(id)}/order/cancel`, { items: [{ code: "DISC" }] });
    await expect422(res, "DISCOUNT_NOT_SEPARABLE");
    expect(await order(token, id)).toEqual(before);
    expect(before.totalPrice.amount).toBe(800);
    await put(token, `${app(id)}/order/send`);
    const refund = await call("POST", `${app(id)}/refunds`, {
      token,
      body: { totalPrice: { amount: 1000, currency: "CZK" } },
    });
    await expect422(refund, "REFUND_LIMIT_EXCEEDED");
  });

  it("is cancelled with the last item: the whole application is cancelled", async () => {
    const { token } = await signIn();
    const id = await discountedAndApproved(token);
    const res = await put(token, `${app(id)}/order/cancel`, { items: [{ code: "KB-01" }] });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      state: "CANCELLED",
      totalPrice: { amount: 0 },
      applicationInfo: { state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" },
    });
  });
});
