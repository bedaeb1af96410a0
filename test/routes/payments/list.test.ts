import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { app, approved, put } from "../../support/orders";
import { closeNow } from "../../support/settlement-api";

const payments = async (token: string, id: string) =>
  json<{ data: unknown[] }>(await call("GET", `${app(id)}/payments`, { token }));

describe("GET …/applications/{id}/payments", () => {
  it("lists each PAID payout holding the application's entries, with what they add up to in it", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const elsewhere = await approved(token);
    expect(await payments(token, id)).toEqual({ data: [], pagingInfo: { itemsPerPage: 20 } });
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    await put(token, `${app(elsewhere)}/order/send`, { items: [{ code: "BK-7" }] });
    const [first] = await closeNow(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "SHIP" }] });
    const [second] = await closeNow(token);
    expect(await payments(token, id)).toEqual({
      data: [
        {
          paymentId: first!.id,
          date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          applicationId: id,
          value: { amount: 15516, currency: "CZK" },
        },
        {
          paymentId: second!.id,
          date: expect.any(String),
          applicationId: id,
          value: { amount: 31032, currency: "CZK" },
        },
      ],
      pagingInfo: { itemsPerPage: 20 },
    });
    const other = await signIn();
    expect((await call("GET", `${app(id)}/payments`, { token: other.token })).status).toBe(404);
  });
});
