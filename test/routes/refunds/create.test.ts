import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { countRows } from "../../support/factories";
import { app, approved, approvedWithTotal, expect422, order, put } from "../../support/orders";

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
