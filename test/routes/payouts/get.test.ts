import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { shipped } from "../../support/orders";
import { closeNow } from "../../support/settlement-api";

describe("GET /financing/v1/payouts/{payoutId}", () => {
  it("reads the partner's payout as it closed, and 404s another partner's", async () => {
    const { token } = await signIn();
    const other = await signIn();
    await shipped(token);
    const [payout] = await closeNow(token);
    const res = await call("GET", `/financing/v1/payouts/${payout!.id}`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(payout);
    expect((await call("GET", `/financing/v1/payouts/${payout!.id}`, { token: other.token })).status).toBe(404);
  });
});
