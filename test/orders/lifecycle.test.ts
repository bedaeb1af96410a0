import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../support/api";
import { applicationRequest, countRows, createApplication, eventsOf, forceState } from "../support/factories";
import { app, approved, approvedWithTotal, expect422, type OrderView, order, put } from "./support";

const states = (o: OrderView) => o.items.map((i) => [i.code, i.quantity, i.state]);

describe("PUT …/order/send", () => {
  it("with an empty body sends the whole order: the full answer", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const res = await put(token, `${app(id)}/order/send`, { sentDate: "2026-11-23", deliveryTrackingNumber: "PPL-1" });
    expect(res.status).toBe(200);
    const request = applicationRequest();
    expect(await json(res)).toEqual({
      number: expect.any(String),
      reservationDate: "2026-11-22T09:15:00+00:00",
      state: "SENT",
      totalPrice: { amount: 200000, currency: "CZK" },
      totalVat: request.order.totalVat,
      refundedPrice: { amount: 0, currency: "CZK" },
      refundablePrice: { amount: 200000, currency: "CZK" },
      items: request.order.items.map((item) => ({
        ...item,
        state: "SENT",
        sentDate: "2026-11-23",
        deliveryTrackingNumber: "PPL-1",
      })),
      addresses: request.order.addresses,
      variableSymbols: request.order.variableSymbols,
      deliveryCarrier: request.order.deliveryCarrier,
      channel: "ESHOP",
      documents: [],
      applicationInfo: { id, state: "READY", stateReason: "READY_SHIPPED" },
    });
    expect((await eventsOf(id)).at(-1)).toEqual({ sequence: 2, state: "READY", stateReason: "READY_SHIPPED" });
  });

  it("sends part of a line: the sent units become a new line, prices split exactly", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 1000, 3);
    const res = await put(token, `${app(id)}/order/send`, { items: [{ code: "TV-55", quantity: 2 }] });
    const body = await json<OrderView>(res);
    expect(body.items.map((i) => [i.quantity, i.state, i.totalPrice.amount])).toEqual([
      [1, "PROCESSING", 334],
      [2, "SENT", 666],
    ]);
    expect(body.state).toBe("PROCESSING");
    expect(body.totalPrice.amount).toBe(1000);
    expect(body.applicationInfo.stateReason).toBe("READY_SHIPPED");
  });

  it("defaults sentDate to today in the service time zone", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const body = await json<OrderView>(await put(token, `${app(id)}/order/send`, { items: [{ name: "Delivery" }] }));
    expect(body.items.find((i) => i.code === "SHIP")!.sentDate).toMatch(/^\d{4}-\d\d-\d\d$/);
  });

  it("matches items only when every identifier given matches", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const partly = await put(token, `${app(id)}/order/send`, { items: [{ code: "KB-01", ean: "0000000000000" }] });
    expect((await expect422(partly, "ITEM_NOT_FOUND")).errors[0]).toMatchObject({ attribute: "items[0]" });
    const fully = await put(token, `${app(id)}/order/send`, {
      items: [{ code: "KB-01", ean: "8591234567890", name: "Mechanical keyboard", type: "PHYSICAL" }],
    });
    expect(states(await json<OrderView>(fully))[0]).toEqual(["KB-01", 2, "SENT"]);
  });

  it("refuses more units than there are (INVALID_QUANTITY) and reports every problem", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const res = await put(token, `${app(id)}/order/send`, {
      items: [{ code: "KB-01", quantity: 3 }, { code: "NOPE" }],
    });
    const body = await expect422(res, "INVALID_QUANTITY");
    expect(body.errors.map((e) => e.code)).toEqual(["INVALID_QUANTITY", "ITEM_NOT_FOUND"]);
    expect((await order(token, id)).state).toBe("PROCESSING");
  });

  it("refuses when everything is already sent (ORDER_ALREADY_SENT)", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`);
    await expect422(await put(token, `${app(id)}/order/send`), "ORDER_ALREADY_SENT");
  });

  it.each([
    ["PROCESSING", "PROCESSING_REDIRECT_NEEDED", "APPLICATION_NOT_READY"],
    ["REJECTED", "REJECTED", "APPLICATION_REJECTED"],
    ["CANCELLED", "CANCELLED_NOT_PAID", "APPLICATION_ALREADY_CANCELLED"],
  ])("refuses in %s with %s, before the outcome is known or after it ended", async (state, reason, code) => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    await forceState(id, state, reason);
    await expect422(await put(token, `${app(id)}/order/send`), code);
  });

  it("refuses an empty items list and a date that does not exist (400)", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    expect((await put(token, `${app(id)}/order/send`, { items: [] })).status).toBe(400);
    const date = await put(token, `${app(id)}/order/send`, { sentDate: "2026-02-30" });
    expect(date.status).toBe(400);
    expect(await json(date)).toMatchObject({ errors: [{ attribute: "sentDate" }] });
  });
});

describe("PUT …/order/deliver", () => {
  it("delivers sent and unsent items (sending those too) and reaches READY_DELIVERED", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "KB-01" }], sentDate: "2026-11-20" });
    const res = await put(token, `${app(id)}/order/deliver`, { deliveryDate: "2026-11-24" });
    const body = await json<OrderView>(res);
    expect(body.items.map((i) => [i.code, i.state, i.sentDate, i.deliveryDate])).toEqual([
      ["KB-01", "DELIVERED", "2026-11-20", "2026-11-24"],
      ["BK-7", "DELIVERED", "2026-11-24", "2026-11-24"],
      ["SHIP", "DELIVERED", "2026-11-24", "2026-11-24"],
    ]);
    expect(body.state).toBe("DELIVERED");
    expect(body.applicationInfo.stateReason).toBe("READY_DELIVERED");
    expect((await eventsOf(id)).map((e) => e.stateReason)).toEqual([
      "PROCESSING_REDIRECT_NEEDED",
      "READY_SHIPPED",
      "READY_DELIVERED",
    ]);
  });

  it("delivering part keeps READY_SHIPPED and the order at its least advanced state", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const body = await json<OrderView>(await put(token, `${app(id)}/order/deliver`, { items: [{ code: "SHIP" }] }));
    expect(body.state).toBe("PROCESSING");
    expect(body.applicationInfo.stateReason).toBe("READY_SHIPPED");
  });

  it("refuses before approval (APPLICATION_NOT_READY)", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    await expect422(await put(token, `${app(id)}/order/deliver`), "APPLICATION_NOT_READY");
  });
});

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
    expect(body.refundablePrice.amount).toBe(124000);
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

  it("refuses to leave less financed than was already refunded (REFUND_LIMIT_EXCEEDED)", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 190000, currency: "CZK" } } });
    await expect422(
      await put(token, `${app(id)}/order/cancel`, { items: [{ code: "KB-01" }] }),
      "REFUND_LIMIT_EXCEEDED",
    );
  });
});

describe("PUT …/order (change)", () => {
  const newContent = {
    totalPrice: { amount: 150000, currency: "CZK" },
    totalVat: [{ vatRate: 21, amount: 26033, currency: "CZK" }],
    items: [
      {
        code: "MON-27",
        name: "Monitor",
        quantity: 1,
        totalPrice: { amount: 150000, currency: "CZK" },
        totalVat: { vatRate: 21, amount: 26033, currency: "CZK" },
      },
    ],
  };

  it("replaces the items and totals and answers the application", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const res = await put(token, `${app(id)}/order`, { reason: "customer swapped the keyboard", order: newContent });
    expect(res.status).toBe(200);
    const body = await json<{ order: OrderView; state: string }>(res);
    expect(body.state).toBe("READY");
    expect(body.order.totalPrice.amount).toBe(150000);
    expect(body.order.items).toEqual([{ ...newContent.items[0], type: "PHYSICAL", state: "PROCESSING" }]);
    expect(await countRows("order_lines", "application_id = ?", id)).toBe(1);
  });

  it("refuses a total above the approved one once approved (TOTAL_PRICE_LIMIT_EXCEEDED)", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 1000);
    const more = structuredClone(newContent);
    await expect422(await put(token, `${app(id)}/order`, { order: more }), "TOTAL_PRICE_LIMIT_EXCEEDED");
  });

  it("allows any total before approval", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    const bigger = structuredClone(newContent);
    bigger.items[0]!.totalPrice.amount = bigger.totalPrice.amount = 900000;
    bigger.items[0]!.totalVat.amount = bigger.totalVat[0]!.amount = 156198;
    expect((await put(token, `${app(id)}/order`, { order: bigger })).status).toBe(200);
  });

  it("refuses once an item is sent (ORDER_ALREADY_SENT)", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "SHIP" }] });
    await expect422(await put(token, `${app(id)}/order`, { order: newContent }), "ORDER_ALREADY_SENT");
  });

  it("checks the new content like a create (400) and in the application's currency", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const wrongTotal = { ...newContent, totalPrice: { amount: 1, currency: "CZK" } };
    const res = await put(token, `${app(id)}/order`, { order: wrongTotal });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ errors: [{ code: "TOTAL_PRICE_MISMATCH" }] });
    const euro = JSON.parse(JSON.stringify(newContent).replaceAll("CZK", "EUR"));
    const currency = await put(token, `${app(id)}/order`, { order: euro });
    expect(currency.status).toBe(400);
    expect(await json(currency)).toMatchObject({ errors: [{ code: "CURRENCY_MISMATCH" }] });
  });
});

describe("POST …/refunds", () => {
  it("creates a refund without changing items or order state", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`);
    const res = await call("POST", `${app(id)}/refunds`, {
      token,
      body: { totalPrice: { amount: 5000, currency: "CZK" }, reason: "goodwill", variableSymbol: "123" },
    });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      id: expect.any(String),
      origin: "REFUND",
      totalPrice: { amount: 5000, currency: "CZK" },
      reason: "goodwill",
      variableSymbol: "123",
      createdAt: expect.stringMatching(/\+00:00$/),
    });
    const after = await order(token, id);
    expect(after.state).toBe("SENT");
    expect(after.refundedPrice.amount).toBe(5000);
    expect(after.refundablePrice.amount).toBe(195000);
  });

  it("refuses more than is refundable (REFUND_LIMIT_EXCEEDED), whole", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 2000);
    await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 1500, currency: "CZK" } } });
    await expect422(
      await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 501, currency: "CZK" } } }),
      "REFUND_LIMIT_EXCEEDED",
    );
    expect((await order(token, id)).refundedPrice.amount).toBe(1500);
  });

  it("never lets 10 concurrent refunds together exceed the total", async () => {
    const { token } = await signIn();
    const id = await approvedWithTotal(token, 2000);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 300, currency: "CZK" } } }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 422, 422, 422, 422]);
    const after = await order(token, id);
    expect(after.refundedPrice.amount).toBe(1800);
    expect(await countRows("refunds", "application_id = ?", id)).toBe(6);
  });
});

describe("racing operations", () => {
  it("parallel send and cancel: exactly one wins and the state is consistent", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const [send, cancel] = await Promise.all([put(token, `${app(id)}/order/send`), put(token, `${app(id)}/cancel`)]);
    expect([send.status, cancel.status].sort()).toEqual([200, 422]);
    const after = await order(token, id);
    if (send.status === 200) {
      expect(after.applicationInfo).toMatchObject({ state: "READY", stateReason: "READY_SHIPPED" });
      expect(after.state).toBe("SENT");
    } else {
      expect(after.applicationInfo).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
      expect(after.state).toBe("CANCELLED");
    }
    expect(await eventsOf(id)).toHaveLength(2);
  });
});
