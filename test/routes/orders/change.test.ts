import { describe, expect, it } from "vitest";
import { json, signIn } from "../../support/api";
import { countRows, createApplication } from "../../support/factories";
import { app, approved, approvedWithTotal, expect422, type OrderView, oneItemOrder, put } from "../../support/orders";

describe("PUT …/order (change)", () => {
  const newContent = oneItemOrder(150000, 26033);

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
