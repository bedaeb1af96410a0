import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { app, approved, put } from "../../support/orders";
import { closeNow } from "../../support/settlement-api";

const balance = async (token: string) =>
  json<{ data: Record<string, unknown>[] }>(await call("GET", "/financing/v1/balance", { token }));

describe("GET /financing/v1/balance", () => {
  it("adds up the entries not yet in a payout, per currency, with the next cutoff; empty once paid", async () => {
    const { token } = await signIn();
    expect(await balance(token)).toEqual({ data: [] });
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    expect(await balance(token)).toEqual({
      data: [
        {
          currency: "CZK",
          sales: 16000,
          refunds: 0,
          fees: -400,
          feeVat: -84,
          net: 15516,
          nextCutoffAt: expect.stringMatching(/T00:00:00\+00:00$/),
        },
      ],
    });
    await closeNow(token);
    expect(await balance(token)).toEqual({ data: [] });
  });
});
