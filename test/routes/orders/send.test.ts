import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { applicationRequest, createApplication, eventsOf, forceState } from "../../support/factories";
import { app, approved, approvedWithTotal, expect422, type OrderView, order, put } from "../../support/orders";
import { dbHolding } from "../../support/shards";

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

  it("keeps a document sent with the goods (an invoice, as a return's credit note), with the variable symbol it is for", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const res = await put(token, `${app(id)}/order/send`, {
      items: [{ code: "BK-7" }],
      variableSymbol: "2026000123",
      document: { type: "INVOICE", description: "Invoice 7", file: { filename: "invoice-7.txt", content: btoa("7") } },
    });
    expect(res.status).toBe(200);
    const { documents, items } = await json<OrderView>(res);
    expect(items.find((i) => i.code === "BK-7")!.state).toBe("SENT");
    expect(documents).toEqual([
      {
        id: expect.any(String),
        type: "INVOICE",
        filename: "invoice-7.txt",
        description: "Invoice 7",
        url: expect.any(String),
      },
    ]);
    const download = await call("GET", documents[0]!.url, { token });
    expect(await download.text()).toBe("7");
    const stored = await (await dbHolding("documents", documents[0]!.id))
      .prepare("SELECT variable_symbol AS symbol FROM documents WHERE id = ?")
      .bind(documents[0]!.id)
      .first<{ symbol: string }>();
    expect(stored).toEqual({ symbol: "2026000123" });
    const refused = await put(token, `${app(id)}/order/send`, {
      document: { type: "INVOICE", file: { filename: "invoice.exe", content: btoa("MZ") } },
    });
    await expect422(refused, "FILE_TYPE_NOT_ALLOWED");
    expect((await order(token, id)).items.filter((i) => i.state === "SENT")).toHaveLength(1);
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
