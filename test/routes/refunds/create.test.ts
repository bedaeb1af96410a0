import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { countRows } from "../../support/factories";
import { app, approved, expect422, order, put, shippedWithTotal } from "../../support/orders";

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
    const id = await shippedWithTotal(token, 2000);
    await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 1500, currency: "CZK" } } });
    await expect422(
      await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 501, currency: "CZK" } } }),
      "REFUND_LIMIT_EXCEEDED",
    );
    expect((await order(token, id)).refundedPrice.amount).toBe(1500);
  });

  it("refuses any refund before goods went out, and of more than went out (REFUND_LIMIT_EXCEEDED)", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const before = await order(token, id);
    expect(before.refundablePrice.amount).toBe(0);
    const body = await expect422(
      await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 1, currency: "CZK" } } }),
      "REFUND_LIMIT_EXCEEDED",
    );
    expect(body).toMatchObject({
      errors: [{ attribute: "totalPrice.amount", message: expect.stringContaining("before goods go out") }],
    });
    expect(await order(token, id)).toEqual(before);
    expect(await countRows("refunds", "application_id = ?", id)).toBe(0);
    // The book went out: its price (160.00) is refundable, no more.
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    expect((await order(token, id)).refundablePrice.amount).toBe(16000);
    await expect422(
      await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 16001, currency: "CZK" } } }),
      "REFUND_LIMIT_EXCEEDED",
    );
  });

  it("never lets 10 concurrent refunds together exceed the total", async () => {
    const { token } = await signIn();
    const id = await shippedWithTotal(token, 2000);
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
