import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { app, put, shippedWithTotal } from "../../support/orders";

interface RefundPage {
  data: { id: string; origin: string; totalPrice: { amount: number } }[];
  pagingInfo: { itemsPerPage: number; nextPage?: string; prevPage?: string };
}

describe("GET …/refunds", () => {
  it("lists refunds from returns and direct refunds, oldest first, a page at a time", async () => {
    const { token } = await signIn();
    const id = await shippedWithTotal(token, 2000);
    await put(token, `${app(id)}/order/send`);
    await put(token, `${app(id)}/order/return`, { items: [], totalPrice: { amount: 100, currency: "CZK" } });
    await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 200, currency: "CZK" } } });
    await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 300, currency: "CZK" } } });

    const first = await json<RefundPage>(await call("GET", `${app(id)}/refunds?limit=2`, { token }));
    expect(first.data.map((r) => [r.origin, r.totalPrice.amount])).toEqual([
      ["RETURN", 100],
      ["REFUND", 200],
    ]);
    expect(first.pagingInfo.nextPage).toBe(`${app(id)}/refunds?limit=2&after=${first.data[1]!.id}`);
    const second = await json<RefundPage>(await call("GET", first.pagingInfo.nextPage!, { token }));
    expect(second.data.map((r) => r.totalPrice.amount)).toEqual([300]);
    expect(second.pagingInfo.nextPage).toBeUndefined();
    expect(second.pagingInfo.prevPage).toBe(`${app(id)}/refunds?limit=2&before=${second.data[0]!.id}`);
  });

  it("answers 404 for another partner's application and 400 for a sort it does not offer", async () => {
    const owner = await signIn();
    const other = await signIn();
    const id = await shippedWithTotal(owner.token, 2000);
    expect((await call("GET", `${app(id)}/refunds`, { token: other.token })).status).toBe(404);
    const bad = await call("GET", `${app(id)}/refunds?sort=amount`, { token: owner.token });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ errors: [{ attribute: "sort" }] });
  });
});
